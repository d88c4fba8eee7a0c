package io.kvlog.spark.read;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * Several offset ranges read by one task. Only aggregate scans use it: their tasks return a row per range, so
 * packing ranges into as many tasks as the cluster runs at once saves a task's fixed cost per range.
 */
record LogRangeGroup(List<LogRange> ranges) implements InputPartition {
    /** {@code ranges} dealt round-robin, largest first, into at most {@code slots} groups. */
    static InputPartition[] pack(List<LogRange> ranges, int slots) {
        List<LogRange> bySize = new ArrayList<>(ranges);
        bySize.sort((a, b) -> Long.compare(b.size(), a.size()));
        int n = Math.max(1, Math.min(slots, bySize.size()));
        List<List<LogRange>> groups = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            groups.add(new ArrayList<>());
        }
        for (int i = 0; i < bySize.size(); i++) {
            groups.get(i % n).add(bySize.get(i));
        }
        InputPartition[] out = new InputPartition[n];
        for (int i = 0; i < n; i++) {
            out[i] = new LogRangeGroup(groups.get(i));
        }
        return out;
    }
}
