package io.kvlog.spark;

import com.github.luben.zstd.ZstdException;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/** Inflates one batch payload into a reused buffer, never past the budget (decompression bombs fail fast). */
final class Decompressor {
    static final int NONE = 0;
    static final int GZIP = 1;
    static final int SNAPPY = 2;
    static final int LZ4 = 3;
    static final int ZSTD = 4;

    private final PayloadBuffer out;

    Decompressor(int budget) {
        out = new PayloadBuffer(budget);
    }

    /** The decompressed bytes are {@code result.data[0, result.size)} until the next call. */
    PayloadBuffer decompress(int codec, int magic, byte[] src, int off, int len) throws BatchFormatException {
        out.size = 0;
        switch (codec) {
            case GZIP -> stream(new ByteArrayInputStream(src, off, len), "gzip", true);
            case SNAPPY -> SnappyReader.read(src, off, len, out);
            case LZ4 -> Lz4FrameReader.read(src, off, len, magic, out);
            case ZSTD -> {
                if (magic < 2) {
                    throw new BatchFormatException("zstd is not allowed with magic v" + magic);
                }
                stream(new ByteArrayInputStream(src, off, len), "zstd", false);
            }
            default -> throw new BatchFormatException("unknown compression codec id " + codec);
        }
        return out;
    }

    private void stream(ByteArrayInputStream raw, String name, boolean gzip) throws BatchFormatException {
        try (InputStream in = gzip ? new GZIPInputStream(raw, 64 << 10) : new ZstdInputStreamNoFinalizer(raw)) {
            out.drain(in);
        } catch (IOException | ZstdException e) {
            throw new BatchFormatException("invalid " + name + " stream: " + e.getMessage());
        }
    }
}
