package io.kvlog.spark.log;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The {@code <20-digit base offset>.log} files of one partition directory, in offset order.
 *
 * <p>A {@code .log.swap} file is a compaction or split caught between its renames: recovery would put it in place
 * of the segments whose base offsets it covers, so a reader does the same (without renaming anything), as the
 * Python source's read-only open does.
 */
public final class SegmentList implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final String LOG = ".log";
    private static final String SWAP = ".log.swap";

    public final String dir;
    public final long[] bases;
    private final boolean[] swapped;
    /**
     * The partition's offsets can have no gaps: never compacted, by the cleaner's checkpoint and by the absence of
     * a compaction's {@code .cleaned}/{@code .swap} files (the Python source's {@code dense_history}). A batch
     * whose base offset leaves a gap is then damage: the base offset lies outside the CRC.
     */
    public final boolean dense;
    /** File names of the segments when they are not {@code <20-digit base>.log} (a remote segment); else null. */
    private final String[] names;
    /** A remote segment whose files a file system of its own shows (the Aiven plugin's objects); else null. */
    private final RemoteFiles files;

    private SegmentList(String dir, long[] bases, boolean[] swapped, boolean dense) {
        this(dir, bases, swapped, dense, null, null);
    }

    private SegmentList(String dir, long[] bases, boolean[] swapped, boolean dense, String[] names,
                        RemoteFiles files) {
        this.dir = dir;
        this.bases = bases;
        this.swapped = swapped;
        this.dense = dense;
        this.names = names;
        this.files = files;
    }

    /**
     * One remote segment of a tiered topic (KIP-405): its {@code .log} file, named as the remote storage manager
     * names it (its indexes beside it with the same stem), and its base offset. Never dense: a remote copy may be
     * of a compacted topic.
     */
    public static SegmentList remote(Path logFile, long base) {
        return remote(logFile, base, null);
    }

    /**
     * As above for a segment whose files a file system of its own shows (the Aiven plugin's): {@code logFile} is
     * its {@code .log} object, which the readers see through {@link RemoteFiles#fileSystem} as the {@code .log}
     * Kafka wrote (and its indexes beside it).
     */
    public static SegmentList remote(Path logFile, long base, RemoteFiles files) {
        return new SegmentList(logFile.getParent().toString(), new long[] {base}, new boolean[1], false,
            new String[] {logFile.getName()}, files);
    }

    /** What these files are read through when a file system of their own shows them ({@link #remote}), else null. */
    public RemoteFiles files() {
        return files;
    }

    static SegmentList list(FileSystem fs, Path dir) throws IOException {
        return list(fs, dir, true);
    }

    /** {@code mayBeDense}: the cleaner's checkpoint does not name the partition (and could be read). */
    static SegmentList list(FileSystem fs, Path dir, boolean mayBeDense) throws IOException {
        TreeMap<Long, Boolean> segments = new TreeMap<>();
        List<Long> swaps = new ArrayList<>();
        boolean dense = mayBeDense;
        for (FileStatus f : fs.listStatus(dir)) {
            String n = f.getPath().getName();
            if (isOffsetName(n, LOG)) {
                segments.put(Long.parseLong(n.substring(0, 20)), false);
            } else if (isOffsetName(n, SWAP)) {
                swaps.add(Long.parseLong(n.substring(0, 20)));
            }
            if (n.length() > 20 && n.substring(0, 20).chars().allMatch(Character::isDigit)
                    && (n.endsWith(".swap") || n.endsWith(".cleaned"))) {
                dense = false;
            }
        }
        swaps.sort(null);
        for (long base : swaps) {
            long next = SegmentStream.nextOffset(fs, file(dir.toString(), base, true), base, 64 << 10, true);
            segments.subMap(base, true, Math.max(next, base + 1), false).clear();
            segments.put(base, true);
        }
        long[] bases = new long[segments.size()];
        boolean[] swapped = new boolean[bases.length];
        int i = 0;
        for (Map.Entry<Long, Boolean> e : segments.entrySet()) {
            bases[i] = e.getKey();
            swapped[i++] = e.getValue();
        }
        return new SegmentList(dir.toString(), bases, swapped, dense);
    }

    /** The segments whose base offset is below {@code end}: what a committed end offset lets readers see. */
    SegmentList below(long end) {
        int n = 0;
        while (n < bases.length && bases[n] < end) {
            n++;
        }
        return n == bases.length ? this
            : new SegmentList(dir, Arrays.copyOf(bases, n), Arrays.copyOf(swapped, n), dense,
                names == null ? null : Arrays.copyOf(names, n), files);
    }

    private static boolean isOffsetName(String n, String suffix) {
        return n.length() == 20 + suffix.length() && n.endsWith(suffix)
            && n.substring(0, 20).chars().allMatch(Character::isDigit);
    }

    private static Path file(String dir, long base, boolean swap) {
        return new Path(dir, String.format("%020d", base) + (swap ? SWAP : LOG));
    }

    /** Whether these are a remote segment's files ({@link #remote}). */
    public boolean isRemote() {
        return names != null;
    }

    public Path path(int i) {
        if (names != null) {
            return new Path(dir, names[i]);
        }
        return file(dir, bases[i], swapped[i]);
    }

    /** The index of the segment that holds {@code offset} (the last one whose base is not after it). */
    public int segmentFor(long offset) {
        int i = Arrays.binarySearch(bases, offset);
        if (i >= 0) {
            return i;
        }
        return Math.max(0, -i - 2);
    }
}
