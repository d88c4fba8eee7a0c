package io.kvlog.spark.format;

import java.util.zip.CRC32C;

/**
 * Magic-2 record batches: header fields, CRC-32C, control batches skipped (unless the sink searches them too),
 * records walked only when needed.
 */
public final class RecordBatchV2Decoder {
    public static final int HEADER_SIZE = 61;
    static final int CRC_OFFSET = 17;
    public static final int ATTRIBUTES_OFFSET = 21;
    public static final int LAST_OFFSET_DELTA_OFFSET = 23;
    static final int BASE_TIMESTAMP_OFFSET = 27;
    static final int MAX_TIMESTAMP_OFFSET = 35;
    public static final int RECORD_COUNT_OFFSET = 57;

    private final Decompressor decompressor;
    private final VarintCursor cursor = new VarintCursor();

    public RecordBatchV2Decoder(Decompressor decompressor) {
        this.decompressor = decompressor;
    }

    public static long lastOffset(byte[] b, int p) {
        return Bytes.int64(b, p) + Bytes.int32(b, p + LAST_OFFSET_DELTA_OFFSET);
    }

    public static long maxTimestamp(byte[] b, int p) {
        return Bytes.int64(b, p + MAX_TIMESTAMP_OFFSET);
    }

    static boolean isControl(byte[] b, int p) {
        return (Bytes.int16(b, p + ATTRIBUTES_OFFSET) & 0x20) != 0;
    }

    public static void checkCrc(byte[] b, int p, int size) throws BatchFormatException {
        CRC32C crc = new CRC32C();
        crc.update(b, p + ATTRIBUTES_OFFSET, size - ATTRIBUTES_OFFSET);
        int stored = Bytes.int32(b, p + CRC_OFFSET);
        if ((int) crc.getValue() != stored) {
            throw new BatchFormatException(String.format("CRC-32C mismatch (stored %08x, computed %08x)",
                stored, (int) crc.getValue()));
        }
    }

    /** The smallest record is 7 bytes (length, attributes, two deltas, two lengths, header count: one each). */
    static final int MIN_RECORD_BYTES = 7;

    /**
     * The most records a batch of {@code size} bytes can hold: its record bytes (uncompressed) or the
     * decompression budget (compressed) over {@link #MIN_RECORD_BYTES}. A count above it is damage, and believing
     * it would size the offsets of a header-served batch by a number no CRC guarantees is sane.
     */
    int maxRecords(int size, int codec) {
        long bytes = codec == Decompressor.NONE ? size - HEADER_SIZE : decompressor.budget();
        return (int) Math.max(0, bytes / MIN_RECORD_BYTES);
    }

    /**
     * Serves a batch from its header alone when that is enough: the sink needs offsets only, the record count
     * agrees with the last offset delta (both CRC-covered, so a flip in one shows), and the count fits the bytes.
     * A control batch holding its one marker is skipped (for a sink that takes no control records). False means:
     * read the batch whole and {@link #decode} it.
     * The CRC covers the records such a query never reads; {@code kvlog.verifyChecksums} makes every batch whole.
     */
    public boolean decodeHeader(byte[] b, int p, int size, long start, long end, RecordSink sink) {
        if (sink.needsRecordFields() || size < HEADER_SIZE) {
            return false;
        }
        int attributes = Bytes.int16(b, p + ATTRIBUTES_OFFSET);
        int lastDelta = Bytes.int32(b, p + LAST_OFFSET_DELTA_OFFSET);
        int count = Bytes.int32(b, p + RECORD_COUNT_OFFSET);
        if (count <= 0 || lastDelta != count - 1 || count > maxRecords(size, attributes & 0x07)
                || (attributes & 0x07) > 4) {
            return false;
        }
        if ((attributes & 0x20) != 0 && !sink.includesControlRecords()) {
            return count == 1;
        }
        long baseOffset = Bytes.int64(b, p);
        long first = Math.max(baseOffset, start);
        long last = Math.min(baseOffset + lastDelta, end - 1);
        if (last >= first) {
            sink.offsetRun(first, (int) (last - first + 1), (attributes & 0x08) != 0 ? 1 : 0);
        }
        return true;
    }

    /** Emits the records of the batch at {@code b[p, p + size)} whose offsets are in {@code [start, end)}. */
    public void decode(byte[] b, int p, int size, long start, long end, RecordSink sink) throws BatchFormatException {
        if (size < HEADER_SIZE) {
            throw new BatchFormatException("batch of " + size + " bytes is shorter than the v2 header");
        }
        checkCrc(b, p, size);
        int attributes = Bytes.int16(b, p + ATTRIBUTES_OFFSET);
        if ((attributes & 0x20) != 0 && !sink.includesControlRecords()) {
            return; // control batch: transaction markers are not records a consumer sees
        }
        long baseOffset = Bytes.int64(b, p);
        int lastDelta = Bytes.int32(b, p + LAST_OFFSET_DELTA_OFFSET);
        int count = Bytes.int32(b, p + RECORD_COUNT_OFFSET);
        int timestampType = (attributes & 0x08) != 0 ? 1 : 0;
        if (count < 0 || count > maxRecords(size, attributes & 0x07)) {
            throw new BatchFormatException("record count " + count + " cannot fit in a batch of " + size + " bytes"
                + ((attributes & 0x07) == Decompressor.NONE ? "" : " (decompressed within the budget)"));
        }
        if (!sink.needsRecordFields() && lastDelta == count - 1) {
            long first = Math.max(baseOffset, start);
            long last = Math.min(baseOffset + lastDelta, end - 1);
            if (last >= first) {
                sink.offsetRun(first, (int) (last - first + 1), timestampType);
            }
            return;
        }
        int codec = attributes & 0x07;
        if (codec == Decompressor.NONE) {
            cursor.reset(b, p + HEADER_SIZE, p + size);
        } else {
            PayloadBuffer out = decompressor.decompress(codec, 2, b, p + HEADER_SIZE, size - HEADER_SIZE);
            cursor.reset(out.data, 0, out.size);
        }
        long baseTimestamp = Bytes.int64(b, p + BASE_TIMESTAMP_OFFSET);
        long logAppendTime = timestampType == 1 ? Bytes.int64(b, p + MAX_TIMESTAMP_OFFSET) : 0;
        for (int i = 0; i < count; i++) {
            walkRecord(baseOffset, baseTimestamp, timestampType, logAppendTime, start, end, sink);
        }
        if (cursor.remaining() != 0) {
            throw new BatchFormatException(cursor.remaining() + " bytes follow the batch's " + count + " records");
        }
    }

    private void walkRecord(long baseOffset, long baseTimestamp, int timestampType, long logAppendTime, long start,
                            long end, RecordSink sink) throws BatchFormatException {
        VarintCursor c = cursor;
        int length = c.varint();
        if (length < 0 || length > c.remaining()) {
            throw new BatchFormatException("record length " + length + " exceeds the " + c.remaining()
                + " bytes remaining");
        }
        int recordEnd = c.pos + length;
        int outerEnd = c.end;
        c.end = recordEnd;
        c.skip(1); // record attributes: unused
        if (length < 1) {
            throw new BatchFormatException("empty record");
        }
        long timestampDelta = c.varlong();
        long offset = baseOffset + c.varint();
        int keyLen = c.length("key");
        int keyOff = c.pos;
        c.skip(Math.max(keyLen, 0));
        int valueLen = c.length("value");
        int valueOff = c.pos;
        c.skip(Math.max(valueLen, 0));
        int headerCount = c.varint();
        if (headerCount < 0 || headerCount > c.remaining()) {
            throw new BatchFormatException("header count " + headerCount + " exceeds the bytes remaining");
        }
        boolean wanted = offset >= start && offset < end;
        if (wanted) {
            long ts = timestampType == 1 ? logAppendTime : baseTimestamp + timestampDelta;
            sink.record(offset, ts, timestampType, c.buf, keyOff, keyLen, valueOff, valueLen);
            sink.headers(headerCount);
        }
        for (int h = 0; h < headerCount; h++) {
            int hk = c.length("header key");
            if (hk < 0) {
                throw new BatchFormatException("null header key");
            }
            int hkOff = c.pos;
            c.skip(hk);
            int hv = c.length("header value");
            int hvOff = c.pos;
            c.skip(Math.max(hv, 0));
            if (wanted) {
                sink.header(c.buf, hkOff, hk, hvOff, hv);
            }
        }
        if (c.pos != recordEnd) {
            throw new BatchFormatException("record fields do not fill the record's " + length + " bytes");
        }
        c.end = outerEnd;
    }
}
