package io.kvlog.spark.format;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdException;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.xxhash.XXHashFactory;
import org.xerial.snappy.Snappy;

/**
 * Compresses one batch payload with Kafka's framing for its codec, at Kafka's default levels, into a reused
 * buffer that keeps room for the batch header in front:
 * <ul>
 * <li>gzip: the JDK's {@link GZIPOutputStream} (what Kafka's producer uses), default level;</li>
 * <li>snappy: xerial's stream framing (magic, version 1, compatible version 1), each 32 KiB of input one
 *     big-endian length-prefixed raw snappy block, as xerial's {@code SnappyOutputStream} writes it;</li>
 * <li>lz4: the LZ4 frame Kafka writes (FLG 0x60: independent blocks, no checksums, no content size; BD 0x40:
 *     64 KiB blocks; header checksum over FLG and BD), each block stored raw (high bit set) when it does not
 *     shrink, then the zero end mark;</li>
 * <li>zstd: one frame at level 3 (its content size is recorded; Kafka's readers accept frames with or without).</li>
 * </ul>
 */
final class BatchCompressor implements AutoCloseable {
    static final int SNAPPY_BLOCK = 32 * 1024;
    static final int LZ4_BLOCK = 64 * 1024;
    static final int ZSTD_LEVEL = 3;
    private static final byte[] XERIAL_HEADER = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1};
    private static final int LZ4_MAGIC = 0x184D2204;
    private static final int LZ4_FLG = 0x60;
    private static final int LZ4_BD = 0x40;
    private static final byte LZ4_HC = (byte) ((XXHashFactory.fastestInstance().hash32()
        .hash(new byte[] {LZ4_FLG, LZ4_BD}, 0, 2, 0) >>> 8) & 0xFF);
    private static final int LZ4_INCOMPRESSIBLE = 0x80000000;

    private final int codec;
    private byte[] out = new byte[4096];
    private int size;
    private LZ4Compressor lz4;
    private ZstdCompressCtx zstd;

    BatchCompressor(int codec) {
        if (codec < Decompressor.GZIP || codec > Decompressor.ZSTD) {
            throw new IllegalArgumentException("no compressor for codec id " + codec);
        }
        this.codec = codec;
    }

    /** Bytes used in the buffer {@link #compress} returned, the header room included. */
    int size() {
        return size;
    }

    /**
     * Compresses {@code src[off, off + len)} into the returned buffer from {@code room} on; valid up to
     * {@link #size()} until the next call.
     */
    byte[] compress(byte[] src, int off, int len, int room) throws IOException {
        size = room;
        switch (codec) {
            case Decompressor.GZIP -> gzip(src, off, len);
            case Decompressor.SNAPPY -> snappy(src, off, len);
            case Decompressor.LZ4 -> lz4(src, off, len);
            case Decompressor.ZSTD -> zstd(src, off, len);
            default -> throw new IllegalStateException("codec " + codec);
        }
        return out;
    }

    @Override
    public void close() {
        if (zstd != null) {
            zstd.close();
            zstd = null;
        }
    }

    private void ensure(long need) {
        if (need > RecordBatchV2Encoder.MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("a compressed batch of up to " + need + " bytes does not fit in a "
                + "record batch");
        }
        if (need > out.length) {
            out = Arrays.copyOf(out, (int) Math.min(Math.max(need, (long) out.length * 2),
                RecordBatchV2Encoder.MAX_BATCH_SIZE));
        }
    }

    private void gzip(byte[] src, int off, int len) throws IOException {
        OutputStream sink = new OutputStream() {
            @Override
            public void write(int b) {
                ensure(size + 1L);
                out[size++] = (byte) b;
            }

            @Override
            public void write(byte[] b, int o, int n) {
                ensure((long) size + n);
                System.arraycopy(b, o, out, size, n);
                size += n;
            }
        };
        ensure(size + (long) len / 2 + 64);
        try (GZIPOutputStream gz = new GZIPOutputStream(sink, 8 * 1024)) {
            gz.write(src, off, len);
        }
    }

    private void snappy(byte[] src, int off, int len) throws IOException {
        int blocks = (len + SNAPPY_BLOCK - 1) / SNAPPY_BLOCK;
        ensure(size + XERIAL_HEADER.length + (long) blocks * (4 + Snappy.maxCompressedLength(SNAPPY_BLOCK)));
        System.arraycopy(XERIAL_HEADER, 0, out, size, XERIAL_HEADER.length);
        size += XERIAL_HEADER.length;
        for (int p = off, end = off + len; p < end; p += SNAPPY_BLOCK) {
            int n = Math.min(SNAPPY_BLOCK, end - p);
            int written = Snappy.compress(src, p, n, out, size + 4);
            RecordBatchV2Encoder.putInt32(out, size, written);
            size += 4 + written;
        }
    }

    private void lz4(byte[] src, int off, int len) {
        if (lz4 == null) {
            lz4 = LZ4Factory.fastestInstance().fastCompressor();
        }
        int blocks = (len + LZ4_BLOCK - 1) / LZ4_BLOCK;
        ensure(size + 7 + (long) blocks * (4 + lz4.maxCompressedLength(LZ4_BLOCK)) + 4);
        RecordBatchV2Encoder.putInt32le(out, size, LZ4_MAGIC);
        out[size + 4] = (byte) LZ4_FLG;
        out[size + 5] = (byte) LZ4_BD;
        out[size + 6] = LZ4_HC;
        size += 7;
        for (int p = off, end = off + len; p < end; p += LZ4_BLOCK) {
            int n = Math.min(LZ4_BLOCK, end - p);
            int written = lz4.compress(src, p, n, out, size + 4, out.length - size - 4);
            if (written >= n) {
                RecordBatchV2Encoder.putInt32le(out, size, n | LZ4_INCOMPRESSIBLE);
                System.arraycopy(src, p, out, size + 4, n);
                size += 4 + n;
            } else {
                RecordBatchV2Encoder.putInt32le(out, size, written);
                size += 4 + written;
            }
        }
        RecordBatchV2Encoder.putInt32le(out, size, 0); // end mark
        size += 4;
    }

    private void zstd(byte[] src, int off, int len) throws IOException {
        if (zstd == null) {
            zstd = new ZstdCompressCtx();
            zstd.setLevel(ZSTD_LEVEL);
        }
        ensure(size + Zstd.compressBound(len));
        try {
            size += zstd.compressByteArray(out, size, out.length - size, src, off, len);
        } catch (ZstdException e) {
            throw new IOException("zstd compression of a " + len + "-byte batch payload failed: " + e.getMessage(), e);
        }
    }
}
