package io.kvlog.spark;

import java.io.IOException;
import java.io.Serializable;
import java.util.Arrays;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** The {@code <20-digit base offset>.log} files of one partition directory, in offset order. */
final class SegmentList implements Serializable {
    private static final long serialVersionUID = 1L;

    final String dir;
    final long[] bases;

    SegmentList(String dir, long[] bases) {
        this.dir = dir;
        this.bases = bases;
    }

    static SegmentList list(FileSystem fs, Path dir) throws IOException {
        FileStatus[] files = fs.listStatus(dir);
        long[] bases = Arrays.stream(files)
            .map(f -> f.getPath().getName())
            .filter(n -> n.length() == 24 && n.endsWith(".log") && n.substring(0, 20).chars().allMatch(Character::isDigit))
            .mapToLong(n -> Long.parseLong(n.substring(0, 20)))
            .sorted()
            .toArray();
        return new SegmentList(dir.toString(), bases);
    }

    Path path(int i) {
        return new Path(dir, String.format("%020d.log", bases[i]));
    }

    /** The index of the segment that holds {@code offset} (the last one whose base is not after it). */
    int segmentFor(long offset) {
        int i = Arrays.binarySearch(bases, offset);
        if (i >= 0) {
            return i;
        }
        return Math.max(0, -i - 2);
    }
}
