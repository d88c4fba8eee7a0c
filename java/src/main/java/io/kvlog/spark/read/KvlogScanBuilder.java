package io.kvlog.spark.read;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Takes the columns a query needs, the filters kvlog can apply while planning, and the aggregates it can answer
 * from batch headers (counts; min, max and sum of offsets; by topic and partition). Spark offers aggregates only
 * when no filter is left for it to apply after the scan. {@code kvlog.aggregatePushdown=false} declines them.
 */
public final class KvlogScanBuilder implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownFilters,
        SupportsPushDownAggregates {
    private final CaseInsensitiveStringMap options;
    private final PushedFilters pushed = new PushedFilters();
    private StructType required;
    private Filter[] accepted = new Filter[0];
    private PushedAggregation aggregation;
    private CompleteAggregate complete;
    private List<LogRange> planned; // planned for the aggregation: the scan reuses it

    public KvlogScanBuilder(CaseInsensitiveStringMap options, StructType schema) {
        this.options = options;
        this.required = schema;
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
        required = requiredSchema;
    }

    @Override
    public Filter[] pushFilters(Filter[] filters) {
        List<Filter> rest = new ArrayList<>();
        List<Filter> taken = new ArrayList<>();
        for (Filter f : filters) {
            if (pushed.accept(f)) {
                taken.add(f);
            } else {
                rest.add(f);
            }
        }
        accepted = taken.toArray(new Filter[0]);
        return rest.toArray(new Filter[0]);
    }

    @Override
    public Filter[] pushedFilters() {
        return accepted;
    }

    /**
     * Whole answers when they are cheap: the ranges are planned now and their batch headers aggregated on the
     * driver, unless that would take more than {@code kvlog.completeAggregateBatches} batches; then Spark runs
     * the partial results of {@link #pushAggregation} through its own final aggregate.
     */
    @Override
    public boolean supportCompletePushDown(Aggregation agg) {
        complete = null;
        PushedAggregation wanted = ReadOptions.aggregatePushdown(options) ? PushedAggregation.of(agg) : null;
        long maxBatches = ReadOptions.completeAggregateBatches(options);
        if (wanted == null || maxBatches == 0) {
            return false;
        }
        ReadOptions opts = ReadOptions.parse(options, false);
        Configuration conf = SparkSession.active().sessionState().newHadoopConf();
        try {
            planned = new OffsetRangePlanner(opts, conf).plan(pushed);
            complete = CompleteAggregate.compute(planned, wanted, conf, opts, maxBatches, SQLConf.get().ansiEnabled());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return complete != null;
    }

    @Override
    public boolean pushAggregation(Aggregation agg) {
        if (!ReadOptions.aggregatePushdown(options)) {
            return false;
        }
        aggregation = PushedAggregation.of(agg);
        return aggregation != null;
    }

    @Override
    public Scan build() {
        return new KvlogScan(options, required, pushed, aggregation, aggregation == null ? null : complete, planned);
    }
}
