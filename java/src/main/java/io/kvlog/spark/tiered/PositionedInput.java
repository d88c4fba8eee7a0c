package io.kvlog.spark.tiered;

import java.io.EOFException;
import java.io.IOException;
import org.apache.hadoop.fs.FSInputStream;

/**
 * An input stream whose sequential reads are its positioned reads from a position it keeps: what the Aiven
 * segment's files share, the {@code .log} decoded from its chunks ({@link AivenChunkedInput}) and an index held
 * in memory ({@link AivenSegmentFs}). A subclass reads at a position; seeking only moves the position.
 */
abstract class PositionedInput extends FSInputStream {
    /** Before the problems of a negative seek: the stream's name and ": ", or nothing. */
    private final String label;
    private long pos;

    PositionedInput(String label) {
        this.label = label;
    }

    @Override
    public abstract int read(long position, byte[] buffer, int offset, int length) throws IOException;

    @Override
    public synchronized int read(byte[] b, int off, int len) throws IOException {
        int n = read(pos, b, off, len);
        if (n > 0) {
            pos += n;
        }
        return n;
    }

    @Override
    public synchronized int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n <= 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public synchronized void seek(long to) throws IOException {
        if (to < 0) {
            throw new EOFException(label + "negative seek " + to);
        }
        pos = to;
    }

    @Override
    public synchronized long getPos() {
        return pos;
    }

    @Override
    public boolean seekToNewSource(long targetPos) {
        return false;
    }
}
