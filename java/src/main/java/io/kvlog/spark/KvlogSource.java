package io.kvlog.spark;

import io.kvlog.spark.fs.S3aRoute;
import io.kvlog.spark.read.KafkaSchema;
import io.kvlog.spark.read.PythonRoute;
import io.kvlog.spark.read.ReadOptions;
import io.kvlog.spark.read.Typing;
import io.kvlog.spark.write.SinkCommit;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsCatalogOptions;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code spark.read.format("kvlog")} and {@code df.write.format("kvlog")}: Kafka commit logs read and written on
 * the JVM, with the Python kvlog source's and sink's schema, options and results. A JVM source registered under a
 * short name wins over a Python source of the same name, so a session with this jar reads and writes here.
 *
 * <p>{@code spark.read} and {@code df.write} load the table through {@link KvlogCatalog} (registered in the
 * session on first use), which a write needs to cluster rows by Kafka partition; streams load it directly.
 */
public class KvlogSource implements SupportsCatalogOptions, DataSourceRegister {
    public static final String SHORT_NAME = "kvlog";
    /** The identifier's entry naming the source it came from ({@code kvlog} or {@code kvlog_jvm}). */
    static final String SOURCE_KEY = "__kvlog_source";

    @Override
    public String shortName() {
        return SHORT_NAME;
    }

    /** Nanoseconds the last JVM sink commit of this JVM took on the driver (-1: none yet); for benchmarks. */
    public static long lastSinkCommitNanos() {
        return SinkCommit.lastCommitNanos();
    }

    /** The partitions each task of the last JVM sink commit wrote, {@code ;} between tasks; for tests. */
    public static String lastSinkTaskPartitions() {
        return SinkCommit.lastTaskPartitions();
    }

    /** What the tasks of the last JVM sink commit were handed: "batches", "rows" or ""; for tests. */
    public static String lastSinkExchange() {
        return SinkCommit.lastExchange();
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return Typing.schema(options);
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return table(schema, partitioning, withSource(properties, shortName()), false);
    }

    /**
     * The JVM scan's table; under {@code "kvlog"} (not {@code "kvlog_jvm"}), a load of {@code s3://}, {@code gs://}
     * or {@code abfs://} URIs this JVM has no Hadoop file system for is the Python source's table instead.
     */
    static Table table(StructType schema, Transform[] partitioning, Map<String, String> properties,
                       boolean viaCatalog) {
        Map<String, String> props = new HashMap<>(properties);
        String source = props.remove(SOURCE_KEY);
        String name = source == null ? SHORT_NAME : source;
        if (SHORT_NAME.equals(name) && PythonRoute.wanted(props)) {
            return PythonRoute.table(schema, partitioning, props);
        }
        java.util.List<String> paths = PythonRoute.allPaths(props);
        if (!paths.isEmpty()) { // s3:// and s3a:// URIs' credentials and endpoint as S3A settings (S3aRoute)
            S3aRoute.apply(paths, SparkSession.active().sparkContext().hadoopConfiguration());
        }
        return new KvlogTable(schema, name, viaCatalog);
    }

    private static Map<String, String> withSource(Map<String, String> properties, String source) {
        Map<String, String> out = new HashMap<>(properties);
        out.put(SOURCE_KEY, source);
        return out;
    }

    @Override
    public Identifier extractIdentifier(CaseInsensitiveStringMap options) {
        return KvlogCatalog.identifier(withSource(options.asCaseSensitiveMap(), shortName()));
    }

    /** Registers {@link KvlogCatalog} in the active session when it is not yet (a runtime setting). */
    @Override
    public String extractCatalog(CaseInsensitiveStringMap options) {
        String key = "spark.sql.catalog." + KvlogCatalog.NAME;
        SparkSession spark = SparkSession.active();
        if (!spark.conf().contains(key)) {
            spark.conf().set(key, KvlogCatalog.class.getName());
        }
        return KvlogCatalog.NAME;
    }
}
