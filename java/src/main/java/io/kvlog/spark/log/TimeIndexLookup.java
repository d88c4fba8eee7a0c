package io.kvlog.spark.log;

import io.kvlog.spark.format.Bytes;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A segment's {@code .timeindex}: 12-byte entries (the largest timestamp so far, the offset it was reached at,
 * relative to the segment's base). An entry below a target proves every record up to its offset is earlier, so
 * a timestamp search may start at that offset's batch, as the Python source's search does. Only the prefix with
 * increasing timestamps and offsets is trusted (an active segment's preallocated tail is zeros); a missing or
 * odd index means searching from the start of the segment.
 */
public final class TimeIndexLookup {
    private static final int ENTRY = 12;

    private TimeIndexLookup() {
    }

    /**
     * Where a search for {@code target} may start: the last trusted entry below the target ({@code offset} -1:
     * none, position 0) and the offset index's position for it. The entry is evidence to check: the batch
     * holding {@code offset} must carry exactly {@code timestamp} as its max (Kafka's entries name the batch that
     * reached the max so far), or the index is not this segment's and the search starts at position 0.
     */
    public record Hint(long offset, long timestamp, long position) {
    }

    public static Hint hintFor(FileSystem fs, Path logFile, long baseOffset, long target, long segmentSize) {
        long[] entry = lastEntryBefore(fs, logFile, baseOffset, target);
        if (entry == null) {
            return new Hint(-1, -1, 0);
        }
        return new Hint(entry[0], entry[1], OffsetIndexLookup.positionFor(fs, logFile, baseOffset, entry[0],
            segmentSize));
    }

    /** {offset, timestamp} of the last trusted entry whose timestamp is below {@code target}; null if none. */
    private static long[] lastEntryBefore(FileSystem fs, Path logFile, long baseOffset, long target) {
        byte[] data = OffsetIndexLookup.readEntries(fs, logFile, ".timeindex", ENTRY);
        if (data == null) {
            return null;
        }
        long[] found = null;
        long prevTs = Long.MIN_VALUE;
        long prevRel = -1;
        for (int p = 0; p + ENTRY <= data.length; p += ENTRY) {
            long ts = Bytes.int64(data, p);
            long rel = Bytes.int32(data, p + 8); // Kafka's relative offsets are non-negative int32s
            if (ts <= prevTs || ts < 0 || rel < 0 || rel < prevRel || (p > 0 && ts == 0 && rel == 0)
                    || ts >= target) {
                break;
            }
            prevTs = ts;
            prevRel = rel;
            found = new long[] {baseOffset + rel, ts};
        }
        return found;
    }
}
