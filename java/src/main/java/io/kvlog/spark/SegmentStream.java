package io.kvlog.spark;

import java.io.Closeable;
import java.io.IOException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * One {@code .log} file read forward in chunks through a reused buffer, one whole batch at a time. A batch
 * larger than the buffer grows it, but only after its length was checked against the bytes left in the file.
 */
final class SegmentStream implements Closeable {
    static final int V2_MIN_LENGTH = RecordBatchV2Decoder.HEADER_SIZE - LegacyMessageDecoder.LOG_OVERHEAD;

    private final String file;
    private final FSDataInputStream in;
    private final long fileEnd;
    private byte[] buf;
    private int head;
    private int tail;
    private long bufPosition; // file position of buf[0]

    /** The current batch: {@code buffer()[batchStart(), batchStart() + batchSize())} at file position {@link #position()}. */
    private int batchStart;
    private int batchSize;

    SegmentStream(FileSystem fs, Path path, long from, int chunkBytes) throws IOException {
        this.file = path.toString();
        this.fileEnd = fs.getFileStatus(path).getLen();
        this.in = fs.open(path);
        this.buf = new byte[Math.max(chunkBytes, 4096)];
        this.bufPosition = Math.min(from, fileEnd);
        in.seek(bufPosition);
    }

    String file() {
        return file;
    }

    byte[] buffer() {
        return buf;
    }

    int batchStart() {
        return batchStart;
    }

    int batchSize() {
        return batchSize;
    }

    long position() {
        return bufPosition + batchStart;
    }

    /** Moves to the next batch; false at the end of the file. A cut or impossible length is an error. */
    boolean next() throws IOException {
        return next(false);
    }

    /**
     * Like {@link #next()}, but with {@code tolerateTail} a batch cut short by the end of the file, or a zero-filled
     * tail (a preallocated file, or a writer caught mid-append), ends the file instead: what a recovering reader
     * sees as the log's end.
     */
    boolean next(boolean tolerateTail) throws IOException {
        head = batchStart + batchSize;
        batchSize = 0;
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
        if (!ensure(size)) {
            throw new CorruptLogException(file, position(), "batch cut short by the end of the file");
        }
        batchStart = head;
        batchSize = size;
        return true;
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
            int want = (int) Math.min(buf.length - tail, left);
            int got = in.read(buf, tail, want);
            if (got < 0) {
                return false;
            }
            tail += got;
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
