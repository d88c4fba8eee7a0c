package io.kvlog.spark.format;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/** Inflates one batch payload into a reused buffer, never past the budget (decompression bombs fail fast). */
public final class Decompressor implements AutoCloseable {
    public static final int NONE = 0;
    static final int GZIP = 1;
    static final int SNAPPY = 2;
    static final int LZ4 = 3;
    static final int ZSTD = 4;

    private final PayloadBuffer out;
    private ZstdDecompressCtx zstd; // one native context per reader, reused for every batch

    public Decompressor(int budget) {
        out = new PayloadBuffer(budget);
    }

    int budget() {
        return out.budget();
    }

    /** The decompressed bytes are {@code result.data[0, result.size)} until the next call. */
    public PayloadBuffer decompress(int codec, int magic, byte[] src, int off, int len) throws BatchFormatException {
        out.size = 0;
        switch (codec) {
            case GZIP -> stream(new ByteArrayInputStream(src, off, len), "gzip", true);
            case SNAPPY -> SnappyReader.read(src, off, len, out);
            case LZ4 -> Lz4FrameReader.read(src, off, len, magic, out);
            case ZSTD -> {
                if (magic < 2) {
                    throw new BatchFormatException("zstd is not allowed with magic v" + magic);
                }
                zstd(src, off, len);
            }
            default -> throw new BatchFormatException("unknown compression codec id " + codec);
        }
        return out;
    }

    /** Frees the native zstd context, if one was made. */
    @Override
    public void close() {
        if (zstd != null) {
            zstd.close();
            zstd = null;
        }
    }

    private void stream(ByteArrayInputStream raw, String name, boolean gzip) throws BatchFormatException {
        try (InputStream in = new GZIPInputStream(raw, 64 << 10)) {
            out.drain(in);
        } catch (IOException e) {
            throw new BatchFormatException("invalid " + name + " stream: " + e.getMessage());
        }
    }

    /**
     * A zstd payload in one call on a reused context. Kafka's producers stream their frames, so the content size
     * is often absent: the output then starts at four times the input and doubles, within the budget, while
     * zstd reports the destination too small.
     */
    private void zstd(byte[] src, int off, int len) throws BatchFormatException {
        if (zstd == null) {
            zstd = new ZstdDecompressCtx();
        }
        long declared = Zstd.getFrameContentSize(src, off, len);
        long want = declared >= 0 ? declared : 4L * len;
        out.ensure((int) Math.min(Math.max(want, 1), out.budget()));
        while (true) {
            try {
                out.size = zstd.decompressByteArray(out.data, 0, out.data.length, src, off, len);
                return;
            } catch (ZstdException e) {
                if (e.getErrorCode() != Zstd.errDstSizeTooSmall()) {
                    throw new BatchFormatException("invalid zstd stream: " + e.getMessage());
                }
                zstd.reset();
                if (out.data.length >= out.budget()) {
                    throw new BatchFormatException("decompressed payload exceeds the budget of " + out.budget()
                        + " bytes");
                }
                out.ensure((int) Math.min((long) out.data.length * 2, out.budget()));
            }
        }
    }
}
