package io.kvlog.spark.read;

import io.kvlog.spark.log.TopicPartition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadMaxRows;
import org.apache.spark.sql.connector.read.streaming.SupportsAdmissionControl;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;
import org.apache.spark.sql.types.StructType;

/**
 * Tails partition logs as the Python source's stream reader does: offsets are the next offset per partition,
 * new partitions start at their log start offset, maxOffsetsPerTrigger spreads a limit over partitions by
 * backlog, minOffsetsPerTrigger waits for enough records unless maxTriggerDelay has passed, availableNow drains
 * what was there when it began.
 */
final class KvlogMicroBatchStream implements MicroBatchStream, SupportsAdmissionControl, SupportsTriggerAvailableNow {
    private final ReadOptions opts;
    private final StructType required;
    private final Configuration conf;
    private final io.kvlog.spark.typed.TypedRead typed; // null: keys and values are bytes
    private Map<TopicPartition, Long> target;
    private long lastTrigger = System.nanoTime();

    KvlogMicroBatchStream(ReadOptions opts, StructType required, Configuration conf,
                          io.kvlog.spark.typed.TypedRead typed) {
        this.typed = typed;
        this.opts = opts;
        this.required = required;
        this.conf = conf;
    }

    private OffsetRangePlanner planner() {
        return new OffsetRangePlanner(opts, conf);
    }

    private Map<TopicPartition, PartitionLog> logs() {
        try {
            return planner().openLogs(false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Offset initialOffset() {
        try {
            OffsetRangePlanner p = planner();
            return new PartitionOffsets(p.startingOffsets(p.openLogs(true)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Offset deserializeOffset(String json) {
        return PartitionOffsets.parse(json);
    }

    private Map<TopicPartition, Long> latest(Map<TopicPartition, PartitionLog> open) {
        Map<TopicPartition, Long> out = new TreeMap<>();
        open.forEach((tp, log) -> {
            if (target == null) {
                out.put(tp, log.readableEnd);
            } else if (target.containsKey(tp)) {
                out.put(tp, Math.min(log.readableEnd, target.get(tp)));
            }
        });
        return out;
    }

    @Override
    public Offset latestOffset() {
        throw new UnsupportedOperationException("latestOffset(start, limit) is the kvlog stream's entry point");
    }

    @Override
    public ReadLimit getDefaultReadLimit() {
        return opts.maxOffsetsPerTrigger != null ? ReadLimit.maxRows(opts.maxOffsetsPerTrigger) : ReadLimit.allAvailable();
    }

    @Override
    public Offset latestOffset(Offset startOffset, ReadLimit limit) {
        Map<TopicPartition, PartitionLog> open = logs();
        Map<TopicPartition, Long> latest = latest(open);
        if (startOffset == null) {
            return new PartitionOffsets(latest);
        }
        Map<TopicPartition, Long> begin = ((PartitionOffsets) startOffset).offsets;
        Map<TopicPartition, Long> fresh = new HashMap<>();
        for (TopicPartition tp : latest.keySet()) {
            if (!begin.containsKey(tp)) {
                fresh.put(tp, open.get(tp).logStartOffset);
            }
        }
        if (skipTrigger(begin, fresh, latest)) {
            return startOffset;
        }
        if (limit instanceof ReadMaxRows max) {
            latest = rateLimit(max.maxRows(), begin, fresh, latest);
        }
        Map<TopicPartition, Long> merged = new TreeMap<>(begin);
        latest.forEach((tp, off) -> merged.put(tp, Math.max(off, begin.getOrDefault(tp, off))));
        return new PartitionOffsets(merged);
    }

    private boolean skipTrigger(Map<TopicPartition, Long> begin, Map<TopicPartition, Long> fresh,
                                Map<TopicPartition, Long> latest) {
        Integer low = opts.minOffsetsPerTrigger;
        if (low == null || target != null) {
            return false;
        }
        long backlog = 0;
        for (Map.Entry<TopicPartition, Long> e : latest.entrySet()) {
            long from = begin.getOrDefault(e.getKey(), fresh.getOrDefault(e.getKey(), e.getValue()));
            backlog += Math.max(0, e.getValue() - from);
        }
        long now = System.nanoTime();
        if (backlog < low && (now - lastTrigger) / 1_000_000 < opts.maxTriggerDelayMs) {
            return true;
        }
        lastTrigger = now;
        return false;
    }

    /** Kafka's rateLimit: {@code limit} records spread over partitions in proportion to their backlog. */
    static Map<TopicPartition, Long> rateLimit(long limit, Map<TopicPartition, Long> begin,
                                               Map<TopicPartition, Long> fresh, Map<TopicPartition, Long> until) {
        Map<TopicPartition, Long> sizes = new HashMap<>();
        until.forEach((tp, end) -> {
            Long b = begin.containsKey(tp) ? begin.get(tp) : fresh.get(tp);
            if (b != null && end - b > 0) {
                sizes.put(tp, end - b);
            }
        });
        double total = 0;
        for (long s : sizes.values()) {
            total += s;
        }
        if (total < 1) {
            return until;
        }
        Map<TopicPartition, Long> out = new TreeMap<>();
        for (Map.Entry<TopicPartition, Long> e : until.entrySet()) {
            TopicPartition tp = e.getKey();
            if (!sizes.containsKey(tp)) {
                out.put(tp, e.getValue());
                continue;
            }
            long b = begin.containsKey(tp) ? begin.get(tp) : fresh.get(tp);
            double prorate = limit * (sizes.get(tp) / total);
            long step = prorate >= 1 ? (long) Math.floor(prorate) : (prorate > 0 ? 1 : 0);
            out.put(tp, Math.min(e.getValue(), b + step));
        }
        return out;
    }

    @Override
    public Offset reportLatestOffset() {
        return new PartitionOffsets(latest(logs()));
    }

    @Override
    public void prepareForTriggerAvailableNow() {
        Map<TopicPartition, Long> now = new TreeMap<>();
        logs().forEach((tp, log) -> now.put(tp, log.readableEnd));
        target = now;
    }

    @Override
    public InputPartition[] planInputPartitions(Offset start, Offset end) {
        Map<TopicPartition, Long> begin = ((PartitionOffsets) start).offsets;
        Map<TopicPartition, Long> until = ((PartitionOffsets) end).offsets;
        OffsetRangePlanner planner = planner();
        Map<TopicPartition, PartitionLog> open;
        try {
            open = planner.openLogs(false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<LogRange> ranges = new ArrayList<>();
        for (Map.Entry<TopicPartition, Long> e : until.entrySet()) {
            TopicPartition tp = e.getKey();
            PartitionLog log = open.get(tp);
            if (log == null) {
                if (opts.failOnDataLoss) {
                    throw new IllegalStateException("partition " + tp
                        + " disappeared (set failOnDataLoss=false to go on without it)");
                }
                continue;
            }
            long s = begin.getOrDefault(tp, log.logStartOffset);
            long[] se = planner.checkRange(log, s, e.getValue());
            try {
                ranges.addAll(log.ranges(se[0], se[1], !opts.failOnDataLoss));
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
        return planner.split(ranges).toArray(new InputPartition[0]);
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new LogRangeReaderFactory(required, null, conf, opts.chunkBytes,
            opts.maxRowsPerBatch, opts.verifyChecksums, typed);
    }

    @Override
    public void commit(Offset end) {
        // nothing to release: offsets live in Spark's checkpoint, as for the Kafka source
    }

    @Override
    public void stop() {
        // no open resources between triggers
    }
}
