package io.kvlog.spark.log;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Aborted transactions of one partition: per producer id, the offset spans [first, last marker] that were aborted. */
public final class AbortedTransactions implements Serializable {
    private static final long serialVersionUID = 1L;
    public static final AbortedTransactions NONE = new AbortedTransactions();

    private final Map<Long, List<long[]>> spans = new HashMap<>();

    public void add(long producerId, long firstOffset, long markerOffset) {
        spans.computeIfAbsent(producerId, k -> new ArrayList<>()).add(new long[] {firstOffset, markerOffset});
    }

    public boolean isEmpty() {
        return spans.isEmpty();
    }

    /** The spans overlapping {@code [start, end)}: what a reader of that range needs. */
    public AbortedTransactions within(long start, long end) {
        AbortedTransactions out = new AbortedTransactions();
        spans.forEach((pid, list) -> list.stream().filter(s -> s[1] >= start && s[0] < end)
            .forEach(s -> out.add(pid, s[0], s[1])));
        return out.isEmpty() ? NONE : out;
    }

    /** Whether a transactional data batch of {@code producerId} starting at {@code baseOffset} was aborted. */
    public boolean aborted(long producerId, long baseOffset) {
        List<long[]> list = spans.get(producerId);
        if (list == null) {
            return false;
        }
        for (long[] s : list) {
            if (baseOffset >= s[0] && baseOffset <= s[1]) {
                return true;
            }
        }
        return false;
    }
}
