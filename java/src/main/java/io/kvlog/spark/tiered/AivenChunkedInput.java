package io.kvlog.spark.tiered;

import com.github.luben.zstd.Zstd;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A remote segment's {@code .log} as Kafka wrote it, read from the Aiven plugin's chunked {@code .log} object (each
 * chunk of {@code originalChunkSize} bytes zstd-compressed and/or AES-GCM-encrypted on its own, the chunks one
 * after another), as {@code kvlog.tiered.aiven_log.ChunkedLogFile} reads it: a read maps its range of the original
 * bytes to whole chunks, and consecutive chunks are one contiguous range of the object, so
 *
 * <ul>
 * <li>a point read (an index hint, a batch header) fetches just the chunks it covers, in one positioned read;</li>
 * <li>a scan (a read that follows the previous one, or one longer than a chunk) fetches a group of whole chunks of
 * at least {@link #BLOCK} original bytes in one positioned read.</li>
 * </ul>
 * The decoded chunks of the last two fetches are kept. Fetches are synchronous (the Python reader also fetches the
 * next group ahead on a worker thread). The object is opened on the first fetch.
 */
final class AivenChunkedInput extends PositionedInput {
    /** Original bytes per scan request (the Python reader's block_size). */
    static final int BLOCK = 8 << 20;
    private final FileSystem store;
    private final Path object;
    private final String name;
    private final AivenManifest m;
    private final AivenCipher cipher;
    private final int group;
    private FSDataInputStream raw;
    private long objectSize = -1;
    private long next = -1; // where the previous read ended: a read starting there is a scan
    private Span recent; // the last fetch
    private Span older; // the one before
    private boolean closed;

    private record Span(int first, int last, long start, byte[] data) {
        long end() {
            return start + data.length;
        }
    }

    AivenChunkedInput(FileSystem store, Path object, String name, AivenManifest manifest, AivenCipher cipher) {
        super(name + ": ");
        this.store = store;
        this.object = object;
        this.name = name;
        this.m = manifest;
        this.cipher = cipher;
        this.group = (int) Math.max(1, (BLOCK + (long) m.originalChunkSize - 1) / m.originalChunkSize);
    }

    long size() {
        return m.originalFileSize;
    }

    private void open() throws IOException {
        if (raw == null) {
            try {
                objectSize = store.getFileStatus(object).getLen();
                raw = store.open(object);
            } catch (FileNotFoundException e) {
                throw new RemoteSegmentException(name, -1, "no object " + name + " (the manifest describes a .log of "
                    + m.originalFileSize + " bytes in " + m.chunks() + " chunks)");
            }
        }
    }

    /** The last chunk of {@code first..last} the object holds whole; an error when {@code first} is cut. */
    private int present(int first, int last) throws IOException {
        open();
        int end = last;
        while (end >= first && m.offsets[end + 1] > objectSize) {
            end--;
        }
        if (end < first) {
            throw new RemoteSegmentException(name, m.offsets[first], name + ": chunk " + first + " (bytes " + m.offsets[first] + ".."
                + m.offsets[first + 1] + " of the object) is cut short: the object is " + objectSize + " bytes, its "
                + "manifest's chunk index says " + m.offsets[m.chunks()] + " (a truncated upload, or another object "
                + "under this key)");
        }
        return end;
    }

    /** Chunks {@code first..last}, fetched in one positioned read and decoded. */
    private Span load(int first, int last) throws IOException {
        long t0 = m.offsets[first];
        long len = m.offsets[last + 1] - t0;
        byte[] data = new byte[(int) len];
        try {
            raw.readFully(t0, data);
        } catch (EOFException e) {
            throw new RemoteSegmentException(name, t0, name + ": chunks " + first + ".." + last + " (bytes " + t0 + ".."
                + (t0 + len) + " of the object) are cut short: the object ended before them");
        }
        long start = (long) first * m.originalChunkSize;
        long originalEnd = Math.min(m.originalFileSize, (long) (last + 1) * m.originalChunkSize);
        if (cipher == null && !m.compression) {
            if (len != originalEnd - start) {
                throw new RemoteSegmentException(name, t0, name + ": chunks " + first + ".." + last + " at byte " + t0 + " are "
                    + len + " bytes; uncompressed and unencrypted they must be the original " + (originalEnd - start));
            }
            return new Span(first, last, start, data);
        }
        byte[] out = new byte[(int) (originalEnd - start)];
        int at = 0;
        for (int i = first; i <= last; i++) {
            long position = m.offsets[i];
            int off = (int) (position - t0);
            int size = (int) (m.offsets[i + 1] - position);
            int want = m.originalSize(i);
            byte[] src = data;
            if (cipher != null) {
                src = cipher.decrypt(data, off, size, "chunk " + i, name, position);
                off = 0;
                size = src.length;
            }
            int got;
            if (m.compression) {
                try {
                    got = (int) Zstd.decompressByteArray(out, at, want, src, off, size);
                } catch (RuntimeException e) {
                    throw new RemoteSegmentException(name, position, name + ": chunk " + i + " at byte " + position
                        + " does not decompress (zstd: " + e.getMessage() + ")");
                }
            } else {
                got = size;
                if (got == want) {
                    System.arraycopy(src, off, out, at, want);
                }
            }
            if (got != want) {
                throw new RemoteSegmentException(name, position, name + ": chunk " + i + " at byte " + position + " decodes to " + got
                    + " bytes, not the " + want + " of the original chunk");
            }
            at += want;
        }
        return new Span(first, last, start, out);
    }

    private Span cached(long position) {
        if (recent != null && recent.start() <= position && position < recent.end()) {
            return recent;
        }
        if (older != null && older.start() <= position && position < older.end()) {
            return older;
        }
        return null;
    }

    @Override
    public synchronized int read(long position, byte[] buffer, int offset, int length) throws IOException {
        if (closed) {
            throw new IOException(name + ": read after close");
        }
        if (position < 0) {
            throw new EOFException(name + ": negative read position " + position);
        }
        if (length == 0) {
            return 0;
        }
        if (position >= m.originalFileSize) {
            return -1;
        }
        long end = Math.min(position + length, m.originalFileSize);
        boolean scan = position == next || length > m.originalChunkSize;
        Span span = cached(position);
        if (span == null) {
            int cs = m.originalChunkSize;
            int first = (int) (position / cs);
            int last = (int) ((end - 1) / cs);
            if (scan) {
                last = Math.max(last, Math.min(m.chunks() - 1, first + group - 1));
            }
            span = load(first, present(first, last));
            older = recent;
            recent = span;
        }
        int n = (int) (Math.min(end, span.end()) - position);
        System.arraycopy(span.data(), (int) (position - span.start()), buffer, offset, n);
        next = position + n;
        return n;
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        recent = null;
        older = null;
        if (raw != null) {
            raw.close();
            raw = null;
        }
    }
}
