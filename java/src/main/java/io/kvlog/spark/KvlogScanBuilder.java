package io.kvlog.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Takes the columns a query needs, the filters kvlog can apply while planning, and the aggregates it can answer
 * from batch headers (counts; min, max and sum of offsets; by topic and partition). Spark offers aggregates only
 * when no filter is left for it to apply after the scan. {@code kvlog.aggregatePushdown=false} declines them.
 */
final class KvlogScanBuilder implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownFilters,
        SupportsPushDownAggregates {
    private final CaseInsensitiveStringMap options;
    private final PushedFilters pushed = new PushedFilters();
    private StructType required;
    private Filter[] accepted = new Filter[0];
    private PushedAggregation aggregation;

    KvlogScanBuilder(CaseInsensitiveStringMap options, StructType schema) {
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
        return new KvlogScan(options, required, pushed, aggregation);
    }
}
