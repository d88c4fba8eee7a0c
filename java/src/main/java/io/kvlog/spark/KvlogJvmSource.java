package io.kvlog.spark;

import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code spark.read.format("kvlog_jvm")}: Kafka commit logs read on the JVM with the Python kvlog source's
 * schema and options: batch and micro-batch reads, read_uncommitted and read_committed.
 */
public final class KvlogJvmSource implements TableProvider, DataSourceRegister {
    public static final String SHORT_NAME = "kvlog_jvm";

    @Override
    public String shortName() {
        return SHORT_NAME;
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return KafkaSchema.of(ReadOptions.wantsHeaders(options));
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new KvlogTable(schema);
    }
}
