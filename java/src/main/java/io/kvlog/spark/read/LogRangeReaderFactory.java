package io.kvlog.spark.read;

import io.kvlog.spark.fs.HadoopConf;
import io.kvlog.spark.typed.TypedRead;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import java.util.HashMap;

/**
 * Sent to executors: makes a columnar reader per {@link LogRange} (rows are never produced one by one). The
 * session's Hadoop settings travel as the few entries it changed ({@link HadoopConf}).
 */
final class LogRangeReaderFactory implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;

    private final StructType required;
    private final PushedAggregation aggregation;
    private final HashMap<String, String> conf;
    private final int chunkBytes;
    private final boolean verifyChecksums;
    private final int maxRows;
    private final TypedRead typed; // null: keys and values are bytes

    LogRangeReaderFactory(StructType required, PushedAggregation aggregation, org.apache.hadoop.conf.Configuration conf,
                          int chunkBytes, int maxRows, boolean verifyChecksums, TypedRead typed) {
        this.typed = typed;
        this.aggregation = aggregation;
        this.verifyChecksums = verifyChecksums;
        this.required = required;
        this.conf = HadoopConf.changes(conf);
        this.chunkBytes = chunkBytes;
        this.maxRows = maxRows;
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
        return true;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        throw new UnsupportedOperationException("the JVM kvlog source reads columnar batches only");
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
        try {
            if (partition instanceof CompleteAggregate done) {
                return new CompleteAggregateReader(done.batch(aggregation));
            }
            if (partition instanceof LogRangeGroup group) {
                return new LogRangeGroupReader(group, aggregation, HadoopConf.with(conf), chunkBytes, verifyChecksums);
            }
            return new LogRangeReader((LogRange) partition, required, aggregation, HadoopConf.with(conf), chunkBytes, maxRows,
                verifyChecksums, typed);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
