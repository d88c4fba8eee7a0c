package io.kvlog.spark.format;

import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;

/**
 * Kafka's LZ4 framing: the LZ4 frame format with independent blocks. Magic-0 messages were written by old
 * clients with a header checksum that also covered the frame magic, so that checksum is not verified there.
 */
final class Lz4FrameReader {
    private static final int FRAME_MAGIC = 0x184D2204;
    private static final LZ4SafeDecompressor LZ4 = LZ4Factory.fastestInstance().safeDecompressor();
    private static final XXHash32 XXHASH = XXHashFactory.fastestInstance().hash32();

    private Lz4FrameReader() {
    }

    static void read(byte[] src, int off, int len, int magic, PayloadBuffer out) throws BatchFormatException {
        int end = off + len;
        if (len < 7 || Bytes.int32le(src, off) != FRAME_MAGIC) {
            throw new BatchFormatException("lz4 payload does not start with the LZ4 frame magic");
        }
        int flg = src[off + 4] & 0xFF;
        int bd = src[off + 5] & 0xFF;
        if ((flg >>> 6) != 1) {
            throw new BatchFormatException("unsupported lz4 frame version " + (flg >>> 6));
        }
        boolean blockChecksum = (flg & 0x10) != 0;
        boolean contentChecksum = (flg & 0x04) != 0;
        int hcAt = off + 6 + ((flg & 0x08) != 0 ? 8 : 0) + ((flg & 0x01) != 0 ? 4 : 0);
        if (hcAt >= end) {
            throw new BatchFormatException("truncated lz4 frame header");
        }
        if (magic != 0) {
            int hc = (XXHASH.hash(src, off + 4, hcAt - off - 4, 0) >>> 8) & 0xFF;
            if (hc != (src[hcAt] & 0xFF)) {
                throw new BatchFormatException("lz4 frame header checksum mismatch");
            }
        }
        int maxBlock = switch ((bd >>> 4) & 7) {
            case 4 -> 64 << 10;
            case 5 -> 256 << 10;
            case 6 -> 1 << 20;
            case 7 -> 4 << 20;
            default -> throw new BatchFormatException("invalid lz4 block maximum size code " + ((bd >>> 4) & 7));
        };
        int pos = hcAt + 1;
        while (true) {
            if (end - pos < 4) {
                throw new BatchFormatException("truncated lz4 frame");
            }
            int word = Bytes.int32le(src, pos);
            pos += 4;
            if (word == 0) {
                break;
            }
            boolean stored = (word & 0x80000000) != 0;
            int size = word & 0x7FFFFFFF;
            if (size > end - pos || size > maxBlock) {
                throw new BatchFormatException("lz4 block of " + size + " bytes exceeds the " + (end - pos)
                    + " bytes remaining or the frame's block size");
            }
            if (blockChecksum) {
                if (end - pos - size < 4) {
                    throw new BatchFormatException("truncated lz4 block checksum");
                }
                if (XXHASH.hash(src, pos, size, 0) != Bytes.int32le(src, pos + size)) {
                    throw new BatchFormatException("lz4 block checksum mismatch");
                }
            }
            if (stored) {
                out.ensure(size);
                System.arraycopy(src, pos, out.data, out.size, size);
                out.size += size;
            } else {
                int room = (int) Math.min(maxBlock, (long) out.budget() - out.size);
                out.ensure(room);
                try {
                    out.size += LZ4.decompress(src, pos, size, out.data, out.size, room);
                } catch (LZ4Exception e) {
                    throw new BatchFormatException("invalid lz4 block: " + e.getMessage());
                }
            }
            pos += size + (blockChecksum ? 4 : 0);
        }
        if (contentChecksum) {
            if (end - pos < 4) {
                throw new BatchFormatException("truncated lz4 content checksum");
            }
            if (XXHASH.hash(out.data, 0, out.size, 0) != Bytes.int32le(src, pos)) {
                throw new BatchFormatException("lz4 content checksum mismatch");
            }
        }
    }
}
