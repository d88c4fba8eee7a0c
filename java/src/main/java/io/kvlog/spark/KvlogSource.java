package io.kvlog.spark;

import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code spark.read.format("kvlog")}: Kafka commit logs read on the JVM, with the Python kvlog source's schema,
 * options and results: batch and micro-batch reads, read_uncommitted and read_committed. A JVM source registered
 * under a short name wins over a Python source of the same name, so a session with this jar reads here; writes
 * stay with the Python sink ({@code format("kvlog_python")}).
 */
public class KvlogSource implements TableProvider, DataSourceRegister {
    public static final String SHORT_NAME = "kvlog";

    @Override
    public String shortName() {
        return SHORT_NAME;
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return KafkaSchema.of(ReadOptions.wantsHeaders(options));
    }

    /**
     * The JVM scan's table; under {@code "kvlog"} (not {@code "kvlog_jvm"}), a load of {@code s3://}, {@code gs://}
     * or {@code abfs://} URIs this JVM has no Hadoop file system for is the Python source's table instead.
     */
    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        if (SHORT_NAME.equals(shortName()) && PythonRoute.wanted(properties)) {
            return PythonRoute.table(schema, partitioning, properties);
        }
        return new KvlogTable(schema, shortName());
    }
}
