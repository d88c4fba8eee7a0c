package io.kvlog.spark.log;

import io.kvlog.spark.format.Bytes;
import io.kvlog.spark.format.LegacyMessageDecoder;
import io.kvlog.spark.format.RecordBatchV2Decoder;
import java.io.Closeable;
import java.io.IOException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * One {@code .log} file read forward in chunks through a reused buffer, one whole batch at a time. A batch
 * larger than the buffer grows it, but only after its length was checked against the bytes left in the file.
 *
 * <p>A stream opened {@code headersOnly} stops at the 61-byte header of each v2 batch of at least {@link #SKIP_MIN}
 * bytes and seeks past its records unless the reader asks for them ({@link #fill()}): offsets, counts, attributes,
 * producer ids and max timestamps are header fields, so pruned scans, transaction replays and timestamp searches
 * read a few bytes per batch instead of every record.
 */
public final class SegmentStream implements Closeable {
    static final int V2_MIN_LENGTH = RecordBatchV2Decoder.HEADER_SIZE - LegacyMessageDecoder.LOG_OVERHEAD;
    /** Batches smaller than this are read whole even headers-only: seeking past a few KiB saves nothing. */
    static final int SKIP_MIN = 16 << 10;
    private static final int SKIP_READ = 4096;

    private final String file;
    private final FSDataInputStream in;
    private final long fileEnd;
    private byte[] buf;
    private int head;
    private int tail;
    private long bufPosition; // file position of buf[0]
    private long bytesRead;

    /** The current batch: {@code buffer()[batchStart(), batchStart() + batchSize())} at file position {@link #position()}. */
    private int batchStart;
    private int batchSize;
    private final boolean headersOnly;
    private boolean complete = true;
    private int readLimit = Integer.MAX_VALUE;

    public SegmentStream(FileSystem fs, Path path, long from, int chunkBytes) throws IOException {
        this(fs, path, from, chunkBytes, false);
    }

    public SegmentStream(FileSystem fs, Path path, long from, int chunkBytes, boolean headersOnly) throws IOException {
        this(fs, path, fs.getFileStatus(path), from, chunkBytes, headersOnly);
    }

    /** As above with the file's status already fetched (on a store, each status is a request: HEAD). */
    SegmentStream(FileSystem fs, Path path, org.apache.hadoop.fs.FileStatus status, long from, int chunkBytes,
                  boolean headersOnly) throws IOException {
        this.headersOnly = headersOnly;
        this.file = path.toString();
        this.fileEnd = status.getLen();
        this.in = open(fs, path, status, headersOnly);
        this.buf = new byte[Math.max(chunkBytes, 4096)];
        this.bufPosition = Math.min(from, fileEnd);
    }

    /**
     * {@code path} opened for reading forward: on a store (S3A) through {@code openFile} with the length already
     * known (S3A then sends no HEAD of its own: one request less per segment) and the read policy that fits,
     * sequential for whole batches, random for headers-only scans that skip most bytes. Local files open as
     * before; a file system without openFile's options falls back to open().
     */
    static FSDataInputStream open(FileSystem fs, Path path, org.apache.hadoop.fs.FileStatus status,
                                  boolean headersOnly) throws IOException {
        if (fs instanceof org.apache.hadoop.fs.RawLocalFileSystem
                || fs instanceof org.apache.hadoop.fs.LocalFileSystem) {
            return fs.open(path);
        }
        try {
            return org.apache.hadoop.util.functional.FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status)
                .opt("fs.option.openfile.read.policy", headersOnly ? "random" : "sequential").build());
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return fs.open(path);
        }
    }

    /**
     * One past the last offset of the segment file {@code p} (its base offset when it holds no batch): the batch
     * headers from its offset index's last entry on; a torn or zero-filled tail ends it.
     */
    static long nextOffset(FileSystem fs, Path p, long base, int chunkBytes, boolean headersOnly) throws IOException {
        org.apache.hadoop.fs.FileStatus status = fs.getFileStatus(p);  // (once: each is a HEAD on a store)
        long from = OffsetIndexLookup.positionFor(fs, p, base, Long.MAX_VALUE, status.getLen());
        long next = base;
        try (SegmentStream s = new SegmentStream(fs, p, status, from, chunkBytes, headersOnly)) {
            while (s.next(true)) {
                next = BatchDecoder.lastOffset(s) + 1;
            }
        }
        return next;
    }

    public String file() {
        return file;
    }

    public byte[] buffer() {
        return buf;
    }

    public int batchStart() {
        return batchStart;
    }

    int batchSize() {
        return batchSize;
    }

    public long position() {
        return bufPosition + batchStart;
    }

    /** Moves to the next batch; false at the end of the file. A cut or impossible length is an error. */
    public boolean next() throws IOException {
        return next(false);
    }

    /**
     * Like {@link #next()}, but with {@code tolerateTail} a batch cut short by the end of the file, or a zero-filled
     * tail (a preallocated file, or a writer caught mid-append), ends the file instead: what a recovering reader
     * sees as the log's end.
     */
    public boolean next(boolean tolerateTail) throws IOException {
        head = batchStart + batchSize;
        batchSize = 0;
        if (head > tail) { // the last batch was read headers-only: move past its records
            bufPosition += head;
            head = 0;
            tail = 0;
        }
        batchStart = head;
        if (!ensure(LegacyMessageDecoder.LOG_OVERHEAD + 5)) {
            if (tolerateTail || (tail - head == 0 && bufPosition + tail == fileEnd)) {
                return false;
            }
            throw new CorruptLogException(file, bufPosition + head, "incomplete batch header at the end of the file");
        }
        batchStart = head;
        int length = Bytes.int32(buf, head + 8);
        int magic = buf[head + 16];
        int min = magic >= 2 ? V2_MIN_LENGTH : LegacyMessageDecoder.headerSize(Math.max(magic, 0))
            - LegacyMessageDecoder.LOG_OVERHEAD;
        if (magic < 0 || magic > 2) {
            throw new CorruptLogException(file, position(), "unknown magic " + magic);
        }
        long left = fileEnd - position() - LegacyMessageDecoder.LOG_OVERHEAD;
        if (tolerateTail && (length > left || (length == 0 && Bytes.int64(buf, head) == 0))) {
            return false;
        }
        if (length < min || length > left) {
            throw new CorruptLogException(file, position(), "batch length " + length + " is below the minimum " + min
                + " or exceeds the " + left + " bytes left in the file");
        }
        int size = LegacyMessageDecoder.LOG_OVERHEAD + length;
        boolean skip = headersOnly && magic >= 2 && size >= SKIP_MIN;
        readLimit = skip ? SKIP_READ : Integer.MAX_VALUE;
        if (!ensure(skip ? RecordBatchV2Decoder.HEADER_SIZE : size)) {
            throw new CorruptLogException(file, position(), "batch cut short by the end of the file");
        }
        batchStart = head;
        batchSize = size;
        complete = !skip; // even when its records happen to be buffered: the same query reads the same bytes
        return true;
    }

    /** Bytes read from the file so far. */
    public long bytesRead() {
        return bytesRead;
    }

    /** Whether the current batch was read whole (always, unless opened headers-only and the batch is large). */
    boolean complete() {
        return complete;
    }

    /** Reads the rest of the current batch into the buffer (its length was checked against the file). */
    void fill() throws IOException {
        if (complete) {
            return;
        }
        head = batchStart;
        readLimit = Integer.MAX_VALUE;
        if (!ensure(batchSize)) {
            throw new CorruptLogException(file, bufPosition + head, "batch cut short by the end of the file");
        }
        batchStart = head;
        complete = true;
    }

    /** At least {@code n} bytes from {@code head} in the buffer; false if the file ends first. */
    private boolean ensure(int n) throws IOException {
        if (tail - head >= n) {
            return true;
        }
        if (head > 0) {
            System.arraycopy(buf, head, buf, 0, tail - head);
            bufPosition += head;
            tail -= head;
            head = 0;
        }
        if (n > buf.length) {
            byte[] bigger = new byte[n];
            System.arraycopy(buf, 0, bigger, 0, tail);
            buf = bigger;
        }
        while (tail < n) {
            long left = fileEnd - (bufPosition + tail);
            if (left <= 0) {
                return false;
            }
            int want = (int) Math.min(Math.min(buf.length - tail, left), Math.max(n - tail, readLimit));
            int got = in.read(bufPosition + tail, buf, tail, want); // positioned: one pread, no seek
            if (got < 0) {
                return false;
            }
            tail += got;
            bytesRead += got;
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
