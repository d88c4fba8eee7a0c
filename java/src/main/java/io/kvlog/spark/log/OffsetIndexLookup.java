package io.kvlog.spark.log;

import io.kvlog.spark.format.Bytes;
import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A segment's {@code .index}: 8-byte entries (offset relative to the segment's base, file position). Only the
 * strictly increasing prefix is trusted (an active segment's preallocated tail is zeros); a missing or odd
 * index just means reading from the start of the segment.
 */
public final class OffsetIndexLookup {
    private static final int MAX_INDEX_BYTES = 64 << 20;

    private OffsetIndexLookup() {
    }

    /**
     * The whole entries of the index beside {@code logFile} ({@code .log} becomes {@code suffix}, so a
     * {@code .log.swap}'s index is {@code .index.swap}); null when it is missing, unreadable or implausibly large.
     * An index is a hint: failing to read one only means reading more of the segment.
     */
    public static byte[] readEntries(FileSystem fs, Path logFile, String suffix, int entryBytes) {
        Path index = new Path(logFile.getParent(), logFile.getName().replace(".log", suffix));
        try {
            org.apache.hadoop.fs.FileStatus status;
            try {
                status = fs.getFileStatus(index);  // (one request on a store; exists() and open() were two more)
            } catch (java.io.FileNotFoundException e) {
                return null;
            }
            long len = status.getLen();
            if (len < entryBytes || len > MAX_INDEX_BYTES) {
                return null;
            }
            byte[] data = new byte[(int) (len - len % entryBytes)];
            try (InputStream in = SegmentStream.open(fs, index, status, false)) {
                return in.readNBytes(data, 0, data.length) == data.length ? data : null;
            }
        } catch (IOException e) {
            return null;
        }
    }

    /** A file position at or before the first batch that can hold {@code target}. */
    public static long positionFor(FileSystem fs, Path logFile, long baseOffset, long target, long segmentSize) {
        if (target <= baseOffset) {
            return 0;
        }
        byte[] data = readEntries(fs, logFile, ".index", 8);
        if (data == null) {
            return 0;
        }
        long best = 0;
        long bestRel = -1;
        long prev = -1;
        long lastRel = -1;
        long lastPos = 0;
        for (int p = 0; p + 8 <= data.length; p += 8) {
            long rel = Bytes.int32(data, p) & 0xFFFFFFFFL;
            long pos = Bytes.int32(data, p + 4) & 0xFFFFFFFFL;
            if (rel <= prev || pos > segmentSize) {
                break;
            }
            prev = rel;
            lastRel = rel;
            lastPos = pos;
            // the entry maps a batch's last offset to the batch's start: that batch holds nothing past it
            if (baseOffset + rel <= target) {
                best = pos;
                bestRel = rel;
            }
        }
        // the entry read from, and the last one: a foreign index rarely lands both on batches that hold them
        if (best > 0 && (!holds(fs, logFile, best, baseOffset + bestRel)
                || lastPos != best && !holds(fs, logFile, lastPos, baseOffset + lastRel))) {
            return 0;
        }
        return best;
    }

    /**
     * Whether the batch at {@code position} holds {@code offset}: an index lies outside every checksum, and
     * one that is not this segment's (swapped with a neighbour's, garbage of a plausible shape) points into
     * the middle of batches. The Python reader checks the same ({@code LogSegment._vouch_index}).
     */
    static boolean holds(FileSystem fs, Path logFile, long position, long offset) {
        if (position == 0) {
            return true;
        }
        byte[] head = new byte[27];
        try (FSDataInputStream in = fs.open(logFile)) {
            in.readFully(position, head);
        } catch (IOException e) {
            return false;
        }
        long base = Bytes.int64(head, 0);
        if (head[16] != 2) {
            // a legacy message's offset is its last (a compressed set's wrapper); old brokers indexed a set by
            // its first offset, which only decoding tells: a plausible message at or past the entry's offset
            int size = Bytes.int32(head, 8);
            return (head[16] == 0 || head[16] == 1) && size >= 14 && offset <= base;
        }
        return base <= offset && offset <= base + Bytes.int32(head, 23);
    }
}
