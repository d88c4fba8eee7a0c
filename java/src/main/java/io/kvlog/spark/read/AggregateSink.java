package io.kvlog.spark.read;

import io.kvlog.spark.format.RecordSink;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Counts, minimum, maximum and sum of the offsets a range yields, from offset runs (batch headers) or records,
 * then one row of partial results. A sum that would pass the long range is carried over several rows, so Spark's
 * merge overflows (ANSI error, or wrap-around) exactly where summing the rows would: offsets are never negative.
 */
final class AggregateSink implements RecordSink, AutoCloseable {
    private final PushedAggregation aggregation;
    private final String topic;
    private final int partition;
    private long count;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private long sum;
    private final List<Long> fullSums = new ArrayList<>();
    private ColumnarBatch batch;

    AggregateSink(PushedAggregation aggregation, String topic, int partition) {
        this.aggregation = aggregation;
        this.topic = topic;
        this.partition = partition;
    }

    @Override
    public boolean needsRecordFields() {
        return false;
    }

    @Override
    public void offsetRun(long first, int n, int timestampType) {
        count += n;
        min = Math.min(min, first);
        max = Math.max(max, first + n - 1);
        addRun(first, n);
    }

    @Override
    public void record(long offset, long timestampMs, int timestampType, byte[] buf, int keyOff, int keyLen,
                       int valueOff, int valueLen) {
        count++;
        min = Math.min(min, offset);
        max = Math.max(max, offset);
        add(offset);
    }

    @Override
    public void headers(int n) {
    }

    @Override
    public void header(byte[] buf, int keyOff, int keyLen, int valueOff, int valueLen) {
    }

    /** first + (first + 1) + ... + (first + n - 1), split in halves where the closed form would overflow. */
    private void addRun(long first, long n) {
        try {
            long pairs = n % 2 == 0 ? Math.multiplyExact(n / 2, n - 1) : Math.multiplyExact(n, (n - 1) / 2);
            add(Math.addExact(Math.multiplyExact(first, n), pairs));
        } catch (ArithmeticException e) {
            long half = n / 2;
            addRun(first, half);
            addRun(first + half, n - half);
        }
    }

    private void add(long v) {
        try {
            sum = Math.addExact(sum, v);
        } catch (ArithmeticException e) {
            fullSums.add(sum);
            sum = v;
        }
    }

    boolean empty() {
        return count == 0;
    }

    /**
     * Whether this range has a row of partial results: always for an aggregate without groups, whose merge
     * over no rows at all would make {@code count(*)} null instead of 0.
     */
    boolean hasRow() {
        return count > 0 || aggregation.groupBy.length == 0;
    }

    long count() {
        return count;
    }

    long min() {
        return min;
    }

    long max() {
        return max;
    }

    /** The sum of the range's offsets, in as many longs as it took (several only past the long range). */
    List<Long> sums() {
        List<Long> all = new ArrayList<>(fullSums);
        all.add(sum);
        return all;
    }

    /** The partial results: one row (more only when a sum needed carrying), none for an empty range. */
    ColumnarBatch result() {
        int n = fullSums.size() + 1;
        List<Object[]> rows = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            Object[] row = new Object[aggregation.groupBy.length + aggregation.kinds.length];
            int col = 0;
            for (String g : aggregation.groupBy) {
                row[col++] = KafkaSchema.TOPIC.equals(g) ? topic : (Object) partition;
            }
            boolean first = r == 0;
            for (PushedAggregation.Kind k : aggregation.kinds) {
                row[col++] = switch (k) {
                    case COUNT -> (Object) (first ? count : 0L);
                    case MIN -> first && count > 0 ? (Object) min : null;
                    case MAX -> first && count > 0 ? (Object) max : null;
                    case SUM -> count > 0 ? (Object) (r < fullSums.size() ? fullSums.get(r) : sum) : null;
                };
            }
            rows.add(row);
        }
        batch = aggregation.batch(rows);
        return batch;
    }

    @Override
    public void close() {
        if (batch != null) {
            batch.close();
        }
    }
}
