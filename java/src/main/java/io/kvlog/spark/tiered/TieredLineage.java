package io.kvlog.spark.tiered;

import io.kvlog.spark.metadata.RemoteLogMetadataReplay;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which remote segment serves which offsets of a partition, as {@code kvlog.tiered.lineage.plan_remote_pieces}
 * decides it (the broker's answer to a fetch below its local log start, made once for the whole partition):
 *
 * <ol>
 * <li>the lineage (epoch -> first offset) is the local {@code leader-epoch-checkpoint}, completed by the remote
 * segments' epochs it does not hold (the smallest start per epoch); epoch {@code e} covers
 * {@code [start(e), smallest start of a higher epoch)};</li>
 * <li>each segment's part for each of its epochs ({@code [its first offset, the segment's next epoch's first
 * offset or end + 1)}, epochs taken in offset order, within the segment), clipped to that epoch's lineage range, is
 * a piece; pieces are sorted by start (ties: the order they were made in, segments by start then epochs), a piece
 * touching or overlapping the previous one of the same segment is merged into it, and otherwise where two overlap
 * the earlier keeps its range and the later starts after it;</li>
 * <li>the pieces are clipped to {@code [log start offset, local log start)} (no local segment: no upper clip) and
 * empty ones dropped. A hole between two pieces, or between the last and the local log start, is a
 * {@link RemoteSegmentException} naming the offsets.</li>
 * </ol>
 */
public final class TieredLineage {
    static final long NO_END = Long.MAX_VALUE;

    private TieredLineage() {
    }

    /** Offsets {@code [start, end)} of the log, served by {@code segment}. */
    public record Piece(RemoteLogMetadataReplay.Segment segment, long start, long end) {
    }

    public static String describe(RemoteLogMetadataReplay.Segment s) {
        return "remote segment " + s.id + " of " + s.tp.topic() + "-" + s.tp.partition() + " [" + s.start + ", "
            + s.end + "]";
    }

    /** Epoch -> first offset: the local checkpoint's entries, then the segments' for epochs it does not hold. */
    static TreeMap<Integer, Long> lineage(List<long[]> localEpochs, List<RemoteLogMetadataReplay.Segment> segments) {
        TreeMap<Integer, Long> lineage = new TreeMap<>();
        if (localEpochs != null) {
            for (long[] e : localEpochs) {
                lineage.put((int) e[0], e[1]);
            }
        }
        java.util.Set<Integer> local = new java.util.HashSet<>(lineage.keySet());
        for (RemoteLogMetadataReplay.Segment s : segments) {
            for (Map.Entry<Integer, Long> e : s.epochs.entrySet()) {
                if (local.contains(e.getKey())) {
                    continue;
                }
                Long had = lineage.get(e.getKey());
                if (had == null || e.getValue() < had) {
                    lineage.put(e.getKey(), e.getValue());
                }
            }
        }
        return lineage;
    }

    /**
     * The remote pieces, in offset order. {@code segments}: the partition's in-log remote segments by start offset
     * (then end); {@code localLogStart}: the first local segment's base offset, null without local segments.
     */
    public static List<Piece> plan(List<RemoteLogMetadataReplay.Segment> segments, List<long[]> localEpochs,
                            long logStartOffset, Long localLogStart) {
        TreeMap<Integer, Long> lineage = lineage(localEpochs, segments);
        List<long[]> raw = new ArrayList<>(); // start, end, order, segment index
        for (int si = 0; si < segments.size(); si++) {
            RemoteLogMetadataReplay.Segment seg = segments.get(si);
            List<Map.Entry<Integer, Long>> epochs = new ArrayList<>(seg.epochs.entrySet());
            epochs.sort((a, b) -> a.getValue().equals(b.getValue()) ? Integer.compare(a.getKey(), b.getKey())
                : Long.compare(a.getValue(), b.getValue()));
            for (int i = 0; i < epochs.size(); i++) {
                int epoch = epochs.get(i).getKey();
                long stop = i + 1 < epochs.size() ? epochs.get(i + 1).getValue() : seg.end + 1;
                long lo = Math.max(epochs.get(i).getValue(), seg.start);
                long hi = Math.min(stop, seg.end + 1);
                Long begin = lineage.get(epoch);
                if (begin == null) {
                    continue;
                }
                long until = NO_END;
                for (long o : lineage.tailMap(epoch, false).values()) {
                    until = Math.min(until, o);
                }
                lo = Math.max(lo, begin);
                hi = Math.min(hi, until);
                if (lo < hi) {
                    raw.add(new long[] {lo, hi, raw.size(), si});
                }
            }
        }
        raw.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[2], b[2]));
        List<Piece> pieces = new ArrayList<>();
        for (long[] r : raw) {
            RemoteLogMetadataReplay.Segment seg = segments.get((int) r[3]);
            long lo = r[0];
            long hi = r[1];
            if (!pieces.isEmpty()) {
                Piece last = pieces.get(pieces.size() - 1);
                if (last.segment() == seg && lo <= last.end()) {
                    pieces.set(pieces.size() - 1, new Piece(seg, last.start(), Math.max(last.end(), hi)));
                    continue;
                }
                lo = Math.max(lo, last.end());
                if (lo >= hi) {
                    continue;
                }
            }
            pieces.add(new Piece(seg, lo, hi));
        }
        long top = localLogStart == null ? NO_END : localLogStart;
        List<Piece> clipped = new ArrayList<>();
        for (Piece p : pieces) {
            long s = Math.max(p.start(), logStartOffset);
            long e = Math.min(p.end(), top);
            if (s < e) {
                clipped.add(new Piece(p.segment(), s, e));
            }
        }
        for (int i = 1; i < clipped.size(); i++) {
            Piece prev = clipped.get(i - 1);
            Piece next = clipped.get(i);
            if (next.start() != prev.end()) {
                throw new RemoteSegmentException("no remote segment in the log holds offsets [" + prev.end() + ", "
                    + next.start() + ") of " + prev.segment().tp.topic() + "-" + prev.segment().tp.partition()
                    + ", between " + describe(prev.segment()) + " and " + describe(next.segment())
                    + ": the broker could not serve them either (a copy that never finished, or segments deleted "
                    + "out of order)");
            }
        }
        if (!clipped.isEmpty() && localLogStart != null && clipped.get(clipped.size() - 1).end() != localLogStart) {
            Piece last = clipped.get(clipped.size() - 1);
            throw new RemoteSegmentException("no remote segment in the log holds offsets [" + last.end() + ", "
                + localLogStart + ") of " + last.segment().tp.topic() + "-" + last.segment().tp.partition()
                + ", between " + describe(last.segment()) + " and the first local segment: the broker could not "
                + "serve them either");
        }
        return clipped;
    }
}
