package io.kvlog.spark;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A segment's {@code .timeindex}: 12-byte entries (the largest timestamp so far, the offset it was reached at,
 * relative to the segment's base). An entry below a target proves every record up to its offset is earlier, so
 * a timestamp search may start at that offset's batch, as the Python source's search does. Only the prefix with
 * increasing timestamps and offsets is trusted (an active segment's preallocated tail is zeros); a missing or
 * odd index means searching from the start of the segment.
 */
final class TimeIndexLookup {
    private static final int ENTRY = 12;

    private TimeIndexLookup() {
    }

    /** A file position at or before the first record whose timestamp is at or after {@code target}. */
    static long positionFor(FileSystem fs, Path logFile, long baseOffset, long target, long segmentSize) {
        long known = lastOffsetBefore(fs, logFile, baseOffset, target);
        return known < 0 ? 0 : OffsetIndexLookup.positionFor(fs, logFile, baseOffset, known, segmentSize);
    }

    /** The offset of the last trusted entry whose timestamp is below {@code target}; -1 if none. */
    static long lastOffsetBefore(FileSystem fs, Path logFile, long baseOffset, long target) {
        byte[] data = OffsetIndexLookup.readEntries(fs, logFile, ".timeindex", ENTRY);
        if (data == null) {
            return -1;
        }
        long found = -1;
        long prevTs = Long.MIN_VALUE;
        long prevRel = -1;
        for (int p = 0; p + ENTRY <= data.length; p += ENTRY) {
            long ts = Bytes.int64(data, p);
            long rel = Bytes.int32(data, p + 8) & 0xFFFFFFFFL;
            if (ts <= prevTs || rel < prevRel || (p > 0 && ts == 0 && rel == 0) || ts >= target) {
                break;
            }
            prevTs = ts;
            prevRel = rel;
            found = baseOffset + rel;
        }
        return found;
    }
}
