package io.kvlog.spark.read;

import io.kvlog.spark.fs.HadoopConf;
import io.kvlog.spark.log.LogDiscovery;
import io.kvlog.spark.log.TopicPartition;
import io.kvlog.spark.typed.SchemasTopic;
import io.kvlog.spark.typed.TypedRead;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A read's typed keys and values as the scan needs them: {@link TypedRead} made from the options, with the
 * {@code _schemas} partition found among the read's own directories, and the read's schema for Spark.
 */
public final class Typing {
    private Typing() {
    }

    /** The read's typing, or null when its keys and values stay bytes. */
    public static TypedRead of(CaseInsensitiveStringMap options, Configuration conf) {
        if (options.get("keyFormat") == null && options.get("valueFormat") == null && options.get("schemas") == null) {
            return null;
        }
        String schemasDir = null;
        List<String> paths = PythonRoute.paths(options.asCaseSensitiveMap());
        if (!paths.isEmpty()) {
            try {
                Path dir = LogDiscovery.discover(paths, conf).get(new TopicPartition(SchemasTopic.TOPIC, 0));
                schemasDir = dir == null ? null : dir.toString();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return TypedRead.of(options.asCaseSensitiveMap(), schemasDir, HadoopConf.changes(conf));
    }

    /** The read's schema: Spark's Kafka-source columns, keys and values typed by the read's formats. */
    public static StructType schema(CaseInsensitiveStringMap options) {
        StructType base = KafkaSchema.of(ReadOptions.wantsHeaders(options));
        if (options.get("keyFormat") == null && options.get("valueFormat") == null && options.get("schemas") == null) {
            return base;
        }
        if (options.get("subscribe") == null && options.get("subscribePattern") == null
            && options.get("assign") == null) {
            return base; // a write (Spark asks a table's schema for writes too): its options are the sink's to check
        }
        Configuration conf = SparkSession.active().sessionState().newHadoopConf();
        TypedRead typed = of(options, conf);
        if (typed == null) {
            return base;
        }
        ReadOptions opts = ReadOptions.parse(options, false);
        Map<TopicPartition, Path> chosen;
        try {
            chosen = Subscription.select(LogDiscovery.discover(opts.paths, conf), opts, false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        TreeSet<String> topics = new TreeSet<>();
        for (TopicPartition tp : chosen.keySet()) {
            topics.add(tp.topic());
        }
        return typed.schema(base, new ArrayList<>(topics));
    }
}
