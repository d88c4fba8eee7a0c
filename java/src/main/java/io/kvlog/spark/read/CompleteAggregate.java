package io.kvlog.spark.read;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * A pushed aggregation answered whole while planning, when its ranges' batch headers are few: then Spark needs
 * neither a partial-aggregate stage nor a shuffle, only this one row per group (one row for no group at all).
 * Above {@code kvlog.completeAggregateBatches} batches (or 32 MiB read) the work goes to the executors instead,
 * as partial results. The result is the log as of planning, as every batch query's offsets are.
 */
record CompleteAggregate(List<Object[]> rows) implements InputPartition {
    static final long MAX_BYTES = 32L << 20;

    /** The final rows, or null when answering would read more than the limits allow. */
    static CompleteAggregate compute(List<LogRange> ranges, PushedAggregation aggregation, Configuration conf,
                                     ReadOptions opts, long maxBatches, boolean ansi) throws IOException {
        Map<List<Object>, Accumulator> groups = new LinkedHashMap<>();
        long batches = 0;
        long bytes = 0;
        for (LogRange range : ranges) {
            try (LogRangeReader r = new LogRangeReader(range, null, aggregation, conf, opts.chunkBytes, 1,
                    opts.verifyChecksums)) {
                long took = r.aggregateWithin(maxBatches - batches, MAX_BYTES - bytes);
                if (took < 0) {
                    return null;
                }
                batches += took;
                bytes += r.bytesRead();
                AggregateSink sink = r.aggregate();
                if (!sink.empty()) {
                    List<Object> key = new ArrayList<>();
                    for (String g : aggregation.groupBy) {
                        key.add(KafkaSchema.TOPIC.equals(g) ? range.topic() : (Object) range.partition());
                    }
                    groups.computeIfAbsent(key, k -> new Accumulator()).add(sink, ansi);
                }
            }
        }
        if (aggregation.groupBy.length == 0 && groups.isEmpty()) {
            groups.put(List.of(), new Accumulator()); // a global aggregate has its one row even over nothing
        }
        List<Object[]> rows = new ArrayList<>();
        for (Map.Entry<List<Object>, Accumulator> e : groups.entrySet()) {
            rows.add(e.getValue().row(e.getKey(), aggregation));
        }
        return new CompleteAggregate(rows);
    }

    /** The rows as one columnar batch of {@link PushedAggregation#schema()}. */
    ColumnarBatch batch(PushedAggregation aggregation) {
        return aggregation.batch(rows);
    }

    /** count, min, max and sum of one group across its ranges; sums overflow as Spark's do (ANSI or wrapping). */
    private static final class Accumulator implements Serializable {
        private static final long serialVersionUID = 1L;
        private long count;
        private long min = Long.MAX_VALUE;
        private long max = Long.MIN_VALUE;
        private long sum;

        void add(AggregateSink s, boolean ansi) {
            count += s.count();
            min = Math.min(min, s.min());
            max = Math.max(max, s.max());
            for (long part : s.sums()) {
                if (ansi) {
                    try {
                        sum = Math.addExact(sum, part);
                    } catch (ArithmeticException e) {
                        throw new ArithmeticException("[ARITHMETIC_OVERFLOW] long overflow in sum(offset). "
                            + "Set spark.sql.ansi.enabled to false to let the sum wrap around, as Spark's does");
                    }
                } else {
                    sum += part;
                }
            }
        }

        Object[] row(List<Object> key, PushedAggregation aggregation) {
            Object[] row = new Object[key.size() + aggregation.kinds.length];
            for (int i = 0; i < key.size(); i++) {
                row[i] = key.get(i);
            }
            for (int i = 0; i < aggregation.kinds.length; i++) {
                row[key.size() + i] = switch (aggregation.kinds[i]) {
                    case COUNT -> (Object) count;
                    case MIN -> count == 0 ? null : (Object) min;
                    case MAX -> count == 0 ? null : (Object) max;
                    case SUM -> count == 0 ? null : (Object) sum;
                };
            }
            return row;
        }
    }
}
