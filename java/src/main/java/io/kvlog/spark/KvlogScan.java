package io.kvlog.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.util.SerializableConfiguration;

/** A scan: batch ranges planned on the driver (or a micro-batch stream), read as columnar batches of the pruned schema. */
final class KvlogScan implements Scan, Batch {
    private final CaseInsensitiveStringMap options;
    private ReadOptions opts;
    private final StructType required;
    private final PushedFilters filters;
    private final org.apache.hadoop.conf.Configuration conf;
    private List<LogRange> planned;

    KvlogScan(CaseInsensitiveStringMap options, StructType required, PushedFilters filters) {
        this.options = options;
        this.required = required;
        this.filters = filters;
        this.conf = SparkSession.active().sessionState().newHadoopConf();
    }

    @Override
    public StructType readSchema() {
        return required;
    }

    @Override
    public String description() {
        return "kvlog " + options.getOrDefault("path", options.getOrDefault("paths", "")) + " columns "
            + required.simpleString();
    }

    @Override
    public Batch toBatch() {
        opts = ReadOptions.parse(options, false);
        return this;
    }

    @Override
    public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
        return new KvlogMicroBatchStream(ReadOptions.parse(options, true), required, conf);
    }

    @Override
    public InputPartition[] planInputPartitions() {
        if (planned == null) {
            try {
                planned = new OffsetRangePlanner(opts, conf).plan(filters);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return planned.toArray(new InputPartition[0]);
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new LogRangeReaderFactory(required, new SerializableConfiguration(conf), opts.chunkBytes,
            opts.maxRowsPerBatch, opts.verifyChecksums);
    }
}
