package io.kvlog.spark.read;

import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Hands Spark the rows of a {@link CompleteAggregate}, once. */
final class CompleteAggregateReader implements PartitionReader<ColumnarBatch> {
    private final ColumnarBatch batch;
    private boolean given;

    CompleteAggregateReader(ColumnarBatch batch) {
        this.batch = batch;
    }

    @Override
    public boolean next() {
        if (given) {
            return false;
        }
        given = true;
        return true;
    }

    @Override
    public ColumnarBatch get() {
        return batch;
    }

    @Override
    public void close() {
        batch.close();
    }
}
