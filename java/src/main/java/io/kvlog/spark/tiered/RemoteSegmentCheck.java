package io.kvlog.spark.tiered;

import io.kvlog.spark.format.Bytes;
import io.kvlog.spark.fs.LogFileSystems;
import io.kvlog.spark.log.OffsetIndexLookup;
import java.io.IOException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A remote segment's offsets in {@code __remote_log_metadata} lie outside every checksum of its bytes: before a
 * split reads one, its first batch's base offset and its offset index's last entry must lie within the segment's
 * offsets {@code [start, end]} (and the entry's position within the file), or the object is not the segment the
 * metadata describes, as the Python view checks ({@code kvlog.tiered.view.check_segment}). One 12-byte read and
 * the index the read uses anyway.
 */
public final class RemoteSegmentCheck {
    private RemoteSegmentCheck() {
    }

    public static void check(FileSystem fs, Path logFile, long start, long end) throws IOException {
        long size = fs.getFileStatus(logFile).getLen();
        String where = LogFileSystems.shown(logFile.toString());
        if (size >= 12) {
            byte[] head = new byte[8];
            try (FSDataInputStream in = fs.open(logFile)) {
                in.readFully(0, head);
            }
            long first = Bytes.int64(head, 0);
            if (first < start || first > end) {
                throw new RemoteSegmentException(where, 0, where + ": its first batch starts at offset " + first
                    + ", outside the segment's offsets [" + start + ", " + end + "] in __remote_log_metadata (the "
                    + "object is not this segment, or the metadata is damaged)");
            }
        }
        byte[] index = OffsetIndexLookup.readEntries(fs, logFile, ".index", 8);
        if (index == null) {
            return;
        }
        long prev = -1;
        long lastRel = -1;
        long lastPos = -1;
        for (int p = 0; p + 8 <= index.length; p += 8) {
            long rel = Bytes.int32(index, p) & 0xFFFFFFFFL;
            long pos = Bytes.int32(index, p + 4) & 0xFFFFFFFFL;
            if (rel <= prev) {
                break; // the zero-filled tail of a preallocated index
            }
            prev = rel;
            lastRel = rel;
            lastPos = pos;
        }
        if (lastRel >= 0 && (start + lastRel > end || lastPos >= size)) {
            throw new RemoteSegmentException(where, lastPos, where + ": its offset index's last entry (offset " + (start + lastRel)
                + ", position " + lastPos + ") is not within the segment (the index is not this segment's, or the "
                + "metadata is damaged)");
        }
    }
}
