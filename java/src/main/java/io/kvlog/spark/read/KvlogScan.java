package io.kvlog.spark.read;

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

/** A scan: batch ranges planned on the driver (or a micro-batch stream), read as columnar batches of the pruned schema. */
final class KvlogScan implements Scan, Batch {
    private final CaseInsensitiveStringMap options;
    private ReadOptions opts;
    private final StructType required;
    private final PushedFilters filters;
    /** Partial aggregates each task returns instead of rows; null for a row scan. */
    private final PushedAggregation aggregation;
    /** The whole answer, found while planning; null when tasks aggregate. */
    private final CompleteAggregate complete;
    private final org.apache.hadoop.conf.Configuration conf;
    private List<LogRange> planned;

    KvlogScan(CaseInsensitiveStringMap options, StructType required, PushedFilters filters,
              PushedAggregation aggregation, CompleteAggregate complete, List<LogRange> planned) {
        this.complete = complete;
        this.planned = planned;
        this.options = options;
        this.aggregation = aggregation;
        this.required = aggregation == null ? required : aggregation.schema();
        this.filters = filters;
        this.conf = SparkSession.active().sessionState().newHadoopConf();
    }

    @Override
    public StructType readSchema() {
        return required;
    }

    @Override
    public String description() {
        java.util.List<String> paths = PythonRoute.paths(options.asCaseSensitiveMap());
        return "kvlog " + (paths.isEmpty() ? "" : Subscription.where(paths)) + " columns " // never a URI's secret
            + required.simpleString() + (aggregation == null ? "" : " (aggregates from batch headers)")
            + (complete == null ? "" : " answered while planning");
    }

    @Override
    public Batch toBatch() {
        opts = ReadOptions.parse(options, false);
        return this;
    }

    @Override
    public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
        if (aggregation != null) {
            throw new IllegalStateException("aggregates are pushed to batch scans only");
        }
        return new KvlogMicroBatchStream(ReadOptions.parse(options, true), required, conf, Typing.of(options, conf));
    }

    @Override
    public InputPartition[] planInputPartitions() {
        if (complete != null) {
            return new InputPartition[] {complete};
        }
        if (planned == null) {
            try {
                planned = new OffsetRangePlanner(opts, conf).plan(filters);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (aggregation != null && planned.isEmpty() && aggregation.groupBy.length == 0) {
            try { // no range at all: one row of empty results, so that count(*) merges to 0
                return new InputPartition[] {CompleteAggregate.compute(planned, aggregation, conf, opts, 0, false)};
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (aggregation != null) {
            return LogRangeGroup.pack(planned, SparkSession.active().sparkContext().defaultParallelism());
        }
        return planned.toArray(new InputPartition[0]);
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new LogRangeReaderFactory(required, aggregation, conf, opts.chunkBytes,
            opts.maxRowsPerBatch, opts.verifyChecksums, aggregation == null ? Typing.of(options, conf) : null);
    }
}
