package io.kvlog.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.SerializableConfiguration;

/** Sent to executors: makes a columnar reader per {@link LogRange} (rows are never produced one by one). */
final class LogRangeReaderFactory implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;

    private final StructType required;
    private final SerializableConfiguration conf;
    private final int chunkBytes;
    private final boolean verifyChecksums;
    private final int maxRows;

    LogRangeReaderFactory(StructType required, SerializableConfiguration conf, int chunkBytes, int maxRows,
                          boolean verifyChecksums) {
        this.verifyChecksums = verifyChecksums;
        this.required = required;
        this.conf = conf;
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
            return new LogRangeReader((LogRange) partition, required, conf.value(), chunkBytes, maxRows,
                verifyChecksums);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
