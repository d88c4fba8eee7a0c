package io.kvlog.spark.read;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** The partial aggregates of each range of a {@link LogRangeGroup}, one range after another. */
final class LogRangeGroupReader implements PartitionReader<ColumnarBatch> {
    private final List<LogRange> ranges;
    private final PushedAggregation aggregation;
    private final Configuration conf;
    private final int chunkBytes;
    private final boolean verifyChecksums;
    private int next;
    private LogRangeReader current;

    LogRangeGroupReader(LogRangeGroup group, PushedAggregation aggregation, Configuration conf, int chunkBytes,
                        boolean verifyChecksums) {
        this.ranges = group.ranges();
        this.aggregation = aggregation;
        this.conf = conf;
        this.chunkBytes = chunkBytes;
        this.verifyChecksums = verifyChecksums;
    }

    @Override
    public boolean next() throws IOException {
        while (true) {
            if (current != null && current.next()) {
                return true;
            }
            if (current != null) {
                current.close();
                current = null;
            }
            if (next >= ranges.size()) {
                return false;
            }
            current = new LogRangeReader(ranges.get(next++), null, aggregation, conf, chunkBytes, 1,
                verifyChecksums);
        }
    }

    @Override
    public ColumnarBatch get() {
        return current.get();
    }

    @Override
    public void close() throws IOException {
        if (current != null) {
            current.close();
            current = null;
        }
    }
}
