package io.kvlog.spark.metadata;

import io.kvlog.spark.fs.ExclusiveCreate;
import io.kvlog.spark.fs.LogFileSystems;
import java.io.IOException;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Test entry points (not an API): what the JVM sink resolves from a data directory's KRaft metadata and
 * {@code kvlog-topics.json}, as text, so that {@code tests/test_jvm_sink_kraft_configs.py} holds it against
 * {@code kvlog.topic_configs} in Python. Errors throw, as a write's planning would.
 */
public final class KraftConfigsForTests {
    private KraftConfigsForTests() {
    }

    private static FileSystem fs(Path root) throws IOException {
        return ExclusiveCreate.raw(LogFileSystems.of(root, new Configuration()));
    }

    /**
     * The replayed metadata of {@code root}, one tab-separated line each, sorted ("" without metadata): the node id
     * ("-" when meta.properties gives none), the topics, then the topic, cluster-default and node configs.
     */
    public static String replay(String root) throws IOException {
        Path path = new Path(root);
        KraftTopicConfigs kraft = KraftTopicConfigs.read(fs(path), path);
        if (kraft == null) {
            return "";
        }
        StringBuilder out = new StringBuilder("node\t" + (kraft.nodeId == null ? "-" : kraft.nodeId) + "\n");
        kraft.topics().forEach(t -> out.append("topic\t").append(t).append('\n'));
        kraft.topicConfigs.forEach((t, cfg) -> lines(out, "config\t" + t, cfg));
        lines(out, "cluster", kraft.clusterDefault);
        lines(out, "node", kraft.node);
        return out.toString();
    }

    private static void lines(StringBuilder out, String head, Map<String, String> cfg) {
        cfg.forEach((k, v) -> out.append(head).append('\t').append(k).append('\t').append(v).append('\n'));
    }

    /** "name=value (source)" per segment setting of {@code topic} in {@code root}, as the sink resolves it. */
    public static String segmentConfigs(String root, String topic) throws IOException {
        Path path = new Path(root);
        return TopicSegmentConfigs.load(fs(path), path).explain(topic);
    }
}
