package io.kvlog.spark.read;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvlog.spark.fs.LogFileSystems;
import io.kvlog.spark.fs.S3aRoute;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.execution.datasources.v2.python.PythonDataSourceV2;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code format("kvlog")} on object-store URIs this JVM has no Hadoop file system for ({@code s3://} in PySpark
 * without hadoop-aws; with it, {@link S3aRoute} serves {@code s3://} on the JVM): the read goes to the Python
 * source ({@code kvlog_python}, registered by {@code kvlog.spark.register}), which opens them through pyarrow,
 * with the same options, schema and rows. {@code format("kvlog_jvm")} never does.
 */
public final class PythonRoute {
    static final String PYTHON_NAME = "kvlog_python";
    private static final ObjectMapper JSON = new ObjectMapper();

    private PythonRoute() {
    }

    /** The paths given to load(), as given. */
    static List<String> paths(Map<String, String> properties) {
        CaseInsensitiveStringMap o = new CaseInsensitiveStringMap(properties);
        List<String> out = new ArrayList<>();
        String one = o.get("path");
        if (one != null && !one.isEmpty()) {
            out.add(one);
        }
        String many = o.get("paths");
        if (many != null && !many.isEmpty()) {
            try {
                for (JsonNode n : JSON.readTree(many)) {
                    out.add(n.asText());
                }
            } catch (IOException e) {
                // ReadOptions reports a malformed paths option when the JVM scan plans
            }
        }
        return out;
    }

    /** The paths loaded and a tiered topic's remote storage paths, as given. */
    public static List<String> allPaths(Map<String, String> properties) {
        List<String> all = paths(properties);
        CaseInsensitiveStringMap o = new CaseInsensitiveStringMap(properties);
        for (String k : new String[] {"kvlog.remoteStorage.path", "kvlog.remoteStorage.metadataPath"}) {
            if (o.get(k) != null) {
                all.add(o.get(k));
            }
        }
        return all;
    }

    /**
     * Whether the read must go to the Python source: some path's scheme (of the paths loaded, or of a tiered
     * topic's remote storage) is one pyarrow opens and this JVM has no Hadoop file system for it, and the Python
     * source is registered in the session.
     */
    public static boolean wanted(Map<String, String> properties) {
        SparkSession session = SparkSession.active();
        Configuration conf = null;
        for (String p : allPaths(properties)) {
            String scheme = LogFileSystems.scheme(p);
            if (scheme == null || !LogFileSystems.PYARROW_SCHEMES.contains(scheme)) {
                continue;
            }
            if (conf == null) {
                conf = session.sessionState().newHadoopConf();
            }
            if ("s3".equals(scheme) && S3aRoute.available(conf)) {
                continue; // the JVM reads s3:// through S3A (S3aRoute)
            }
            if (!LogFileSystems.hasFileSystem(scheme, conf)) {
                return session.sessionState().dataSourceManager().dataSourceExists(PYTHON_NAME);
            }
        }
        return false;
    }

    /** The Python source's table for these options (what {@code format("kvlog_python")} would give). */
    public static Table table(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        PythonDataSourceV2 python = new PythonDataSourceV2();
        python.setShortName(PYTHON_NAME);
        return python.getTable(schema, partitioning, properties);
    }
}
