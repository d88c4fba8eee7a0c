package io.kvlog.spark.format;

/** Reads zig-zag varints and varlongs (Kafka's record encoding) from {@code buf[pos, end)}, never past end. */
public final class VarintCursor {
    public byte[] buf;
    public int pos;
    public int end;

    public void reset(byte[] b, int from, int to) {
        buf = b;
        pos = from;
        end = to;
    }

    public int remaining() {
        return end - pos;
    }

    public int varint() throws BatchFormatException {
        int raw = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (pos >= end) {
                throw new BatchFormatException("varint runs past the end of the record");
            }
            int b = buf[pos++];
            raw |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new BatchFormatException("varint longer than 5 bytes");
    }

    public long varlong() throws BatchFormatException {
        long raw = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (pos >= end) {
                throw new BatchFormatException("varlong runs past the end of the record");
            }
            long b = buf[pos++];
            raw |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new BatchFormatException("varlong longer than 10 bytes");
    }

    /** A length field: -1 for null, otherwise at most the bytes that remain. */
    public int length(String what) throws BatchFormatException {
        int n = varint();
        if (n < -1 || n > end - pos) {
            throw new BatchFormatException(what + " length " + n + " exceeds the " + (end - pos) + " bytes remaining");
        }
        return n;
    }

    public void skip(int n) {
        pos += n;
    }
}
