package io.kvlog.spark.fs;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkEnv;
import org.apache.spark.deploy.SparkHadoopUtil;

/**
 * The Hadoop configuration a scan reads with, shipped as what the session changed rather than whole.
 *
 * <p>Every JVM of the application can build the configuration Spark gives its executors (from the SparkConf's
 * {@code spark.hadoop.*} entries). The driver sends the entries of the session's configuration that differ from
 * that: session settings, and values set on {@code sparkContext.hadoopConfiguration()} at run time, such as
 * credentials. Each executor builds the result once per distinct set of entries and reuses it. A whole
 * configuration, broadcast or carried by each task, cost a short query a tenth of its time on this machine.
 */
public final class HadoopConf {
    private static final int CACHED = 32;
    private static final Map<Map<String, String>, Configuration> BUILT = new ConcurrentHashMap<>();
    private static Configuration baseline;

    private HadoopConf() {
    }

    private static synchronized Configuration baseline() {
        if (baseline == null) {
            baseline = SparkHadoopUtil.get().newConfiguration(SparkEnv.get().conf());
        }
        return baseline;
    }

    /** On the driver: the entries of {@code session} that an executor's own configuration lacks or differs in. */
    public static HashMap<String, String> changes(Configuration session) {
        Configuration base = baseline();
        HashMap<String, String> out = new HashMap<>();
        for (Map.Entry<String, String> e : session) {
            if (!e.getValue().equals(base.getRaw(e.getKey()))) {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    /** On an executor: the configuration with {@code changes} applied, built once per distinct set. */
    public static Configuration with(Map<String, String> changes) {
        Configuration c = BUILT.get(changes);
        if (c != null) {
            return c;
        }
        Configuration built = new Configuration(baseline());
        changes.forEach(built::set);
        if (BUILT.size() >= CACHED) {
            BUILT.clear(); // many different sessions in one JVM: rebuild rather than grow without bound
        }
        BUILT.putIfAbsent(new HashMap<>(changes), built);
        return built;
    }
}
