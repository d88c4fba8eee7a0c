package io.kvlog.spark.format;

import java.util.zip.CRC32;

/** Magic-0 and magic-1 messages (CRC-32 each), including a compressed wrapper's inner message set. */
public final class LegacyMessageDecoder {
    public static final int LOG_OVERHEAD = 12;
    private static final int CRC_OFFSET = 12;
    private static final int MAGIC_OFFSET = 16;
    private static final int ATTRIBUTES_OFFSET = 17;

    private final Decompressor decompressor;

    public LegacyMessageDecoder(Decompressor decompressor) {
        this.decompressor = decompressor;
    }

    public static int headerSize(int magic) {
        return MAGIC_OFFSET + 2 + (magic == 1 ? 8 : 0) + 8; // + key and value length fields
    }

    /** Emits the records of the message at {@code b[p, p + size)} with offsets in {@code [start, end)}. */
    public void decode(byte[] b, int p, int size, long start, long end, RecordSink sink) throws BatchFormatException {
        int magic = checked(b, p, size);
        int attributes = b[p + ATTRIBUTES_OFFSET];
        int codec = attributes & 0x07;
        long offset = Bytes.int64(b, p);
        int tsType = magic == 0 ? -1 : ((attributes & 0x08) != 0 ? 1 : 0);
        long ts = magic == 0 ? -1 : Bytes.int64(b, p + 18);
        int kv = p + MAGIC_OFFSET + 2 + (magic == 1 ? 8 : 0);
        int keyLen = Bytes.int32(b, kv);
        int keyOff = kv + 4;
        int end0 = p + size;
        if (keyLen < -1 || keyLen > end0 - keyOff - 4) {
            throw new BatchFormatException("key length " + keyLen + " exceeds the bytes remaining");
        }
        int valueAt = keyOff + Math.max(keyLen, 0);
        int valueLen = Bytes.int32(b, valueAt);
        int valueOff = valueAt + 4;
        if (valueLen < -1 || valueLen != (valueLen < 0 ? -1 : end0 - valueOff) || (valueLen < 0 && valueOff != end0)) {
            throw new BatchFormatException("value length " + valueLen + " does not match the " + (end0 - valueOff)
                + " bytes remaining");
        }
        if (codec == Decompressor.NONE) {
            if (offset >= start && offset < end) {
                if (sink.needsRecordFields()) {
                    sink.record(offset, ts, tsType, b, keyOff, keyLen, valueOff, valueLen);
                    sink.headers(-1);
                } else {
                    sink.offsetRun(offset, 1, tsType);
                }
            }
            return;
        }
        if (valueLen < 0) {
            throw new BatchFormatException("compressed wrapper message has a null value");
        }
        PayloadBuffer inner = decompressor.decompress(codec, magic, b, valueOff, valueLen);
        // copy out: the inner set is walked while the decompressor's buffer is not reused
        byte[] set = java.util.Arrays.copyOf(inner.data, inner.size);
        inner(set, magic, offset, tsType == 1 ? ts : Long.MIN_VALUE, start, end, sink);
    }

    private void inner(byte[] set, int wrapperMagic, long wrapperOffset, long logAppendTime, long start, long end,
                       RecordSink sink) throws BatchFormatException {
        long lastRelative = 0;
        int n = set.length;
        for (int pos = 0; pos < n; ) {
            int size = messageSize(set, pos, n);
            lastRelative = Bytes.int64(set, pos);
            pos += size;
        }
        long base = wrapperMagic == 1 ? wrapperOffset - lastRelative : 0;
        for (int pos = 0; pos < n; ) {
            int size = messageSize(set, pos, n);
            int magic = checked(set, pos, size);
            if ((set[pos + ATTRIBUTES_OFFSET] & 0x07) != 0) {
                throw new BatchFormatException("a compressed message nested inside a compressed message");
            }
            long offset = base + Bytes.int64(set, pos);
            int tsType;
            long ts;
            if (wrapperMagic == 0 || magic == 0) {
                tsType = -1;
                ts = -1;
            } else if (logAppendTime != Long.MIN_VALUE) {
                tsType = 1;
                ts = logAppendTime;
            } else {
                tsType = 0;
                ts = Bytes.int64(set, pos + 18);
            }
            int kv = pos + MAGIC_OFFSET + 2 + (magic == 1 ? 8 : 0);
            int keyLen = Bytes.int32(set, kv);
            int keyOff = kv + 4;
            int end0 = pos + size;
            if (keyLen < -1 || keyLen > end0 - keyOff - 4) {
                throw new BatchFormatException("inner key length " + keyLen + " exceeds the bytes remaining");
            }
            int valueAt = keyOff + Math.max(keyLen, 0);
            int valueLen = Bytes.int32(set, valueAt);
            int valueOff = valueAt + 4;
            if (valueLen < -1 || (valueLen >= 0 && valueLen != end0 - valueOff) || (valueLen < 0 && valueOff != end0)) {
                throw new BatchFormatException("inner value length " + valueLen + " does not fit the message");
            }
            if (offset >= start && offset < end) {
                if (sink.needsRecordFields()) {
                    sink.record(offset, ts, tsType, set, keyOff, keyLen, valueOff, valueLen);
                    sink.headers(-1);
                } else {
                    sink.offsetRun(offset, 1, tsType);
                }
            }
            pos += size;
        }
    }

    private static int messageSize(byte[] b, int pos, int n) throws BatchFormatException {
        if (n - pos < LOG_OVERHEAD) {
            throw new BatchFormatException("truncated inner message header");
        }
        int length = Bytes.int32(b, pos + 8);
        if (length < 14 || length > n - pos - LOG_OVERHEAD) {
            throw new BatchFormatException("inner message length " + length + " exceeds the "
                + (n - pos - LOG_OVERHEAD) + " bytes remaining");
        }
        return LOG_OVERHEAD + length;
    }

    /** Checks magic, minimal size and CRC-32; returns the magic. */
    private static int checked(byte[] b, int p, int size) throws BatchFormatException {
        int magic = b[p + MAGIC_OFFSET];
        if (magic != 0 && magic != 1) {
            throw new BatchFormatException("unknown magic " + magic);
        }
        if (size < headerSize(magic)) {
            throw new BatchFormatException("message of " + size + " bytes is shorter than a v" + magic + " header");
        }
        CRC32 crc = new CRC32();
        crc.update(b, p + MAGIC_OFFSET, size - MAGIC_OFFSET);
        int stored = Bytes.int32(b, p + CRC_OFFSET);
        if ((int) crc.getValue() != stored) {
            throw new BatchFormatException(String.format("CRC-32 mismatch (stored %08x, computed %08x)",
                stored, (int) crc.getValue()));
        }
        return magic;
    }
}
