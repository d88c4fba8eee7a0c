package io.kvlog.spark.format;

import java.io.IOException;
import java.util.Arrays;
import org.xerial.snappy.Snappy;

/** Snappy payloads in xerial's block framing (what Kafka's Java clients write) or raw. */
final class SnappyReader {
    private static final byte[] XERIAL_MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};

    private SnappyReader() {
    }

    private static boolean xerialHeaderAt(byte[] src, int pos, int end) {
        return end - pos >= 8 && Arrays.equals(src, pos, pos + 8, XERIAL_MAGIC, 0, 8);
    }

    static void read(byte[] src, int off, int len, PayloadBuffer out) throws BatchFormatException {
        int end = off + len;
        if (!xerialHeaderAt(src, off, end)) {
            block(src, off, len, out);
            return;
        }
        int pos = off + 16;
        while (pos < end) {
            if (xerialHeaderAt(src, pos, end)) {
                pos += 16;
                continue;
            }
            if (end - pos < 4) {
                throw new BatchFormatException("truncated xerial snappy block header");
            }
            int size = Bytes.int32(src, pos);
            pos += 4;
            if (size < 0 || size > end - pos) {
                throw new BatchFormatException("xerial snappy block length " + size + " exceeds the remaining "
                    + (end - pos) + " bytes");
            }
            block(src, pos, size, out);
            pos += size;
        }
    }

    private static void block(byte[] src, int off, int len, PayloadBuffer out) throws BatchFormatException {
        try {
            int size = Snappy.uncompressedLength(src, off, len);
            out.ensure(size);
            int got = Snappy.uncompress(src, off, len, out.data, out.size);
            if (got != size) {
                throw new BatchFormatException("snappy block length does not match its preamble");
            }
            out.size += got;
        } catch (IOException | RuntimeException e) {
            throw new BatchFormatException("invalid snappy block: " + e.getMessage());
        }
    }
}
