package io.kvlog.spark.metadata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.math.BigInteger;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The settings the sink rolls segments and sizes indexes by ({@code segment.bytes}, {@code index.interval.bytes},
 * {@code segment.index.bytes}), per topic, from where a broker and kvlog keep them, with the precedence of
 * {@code kvlog.topic_configs.TopicConfigs} (a write has no per-run overrides), first match wins per config:
 * the topic's ConfigRecords in the KRaft metadata ({@link KraftTopicConfigs}); kvlog's {@code kvlog-topics.json};
 * for an internal topic the metadata does not list, the configs Kafka creates it with; the dynamic broker config
 * of this node, then of the cluster, through its synonym ({@code log.segment.bytes}, ...); Kafka's defaults.
 * A value Kafka would refuse is an error naming the topic, the config and its source.
 */
public final class TopicSegmentConfigs implements Serializable {
    private static final long serialVersionUID = 1L;
    static final String[] NAMES = {"segment.bytes", "index.interval.bytes", "segment.index.bytes"};
    /** The broker config that sets each dynamically: the first of Kafka's synonyms (ServerTopicConfigSynonyms). */
    static final String[] BROKER_SYNONYMS = {"log.segment.bytes", "log.index.interval.bytes",
        "log.index.size.max.bytes"};
    private static final String[] DEFAULTS = {String.valueOf(1 << 30), "4096", String.valueOf(10 << 20)};
    private static final long[] MINIMUM = {14, 0, 4};
    /** segment.bytes Kafka creates __consumer_offsets, __transaction_state and __share_group_state with. */
    private static final Map<String, String> INTERNAL_SEGMENT_BYTES = Map.of("__consumer_offsets",
        String.valueOf(100 << 20), "__transaction_state", String.valueOf(100 << 20), "__share_group_state",
        String.valueOf(100 << 20));
    private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");
    private static final String KVLOG_TOPICS = "kvlog-topics.json";

    // the sources, kept to the three configs and their synonyms: topic -> config name -> value
    private final TreeMap<String, TreeMap<String, String>> kraftTopics = new TreeMap<>();
    private final TreeMap<String, TreeMap<String, String>> kvlogTopics = new TreeMap<>();
    private final TreeMap<String, String> node = new TreeMap<>();
    private final TreeMap<String, String> cluster = new TreeMap<>();
    private final TreeSet<String> listed = new TreeSet<>();
    private String kraftDir;
    private Integer nodeId;

    private TopicSegmentConfigs() {
    }

    /** The sources of the data directory {@code root}: its KRaft metadata (if any) and kvlog-topics.json. */
    public static TopicSegmentConfigs load(FileSystem fs, Path root) throws IOException {
        TopicSegmentConfigs out = new TopicSegmentConfigs();
        KraftTopicConfigs kraft = KraftTopicConfigs.read(fs, root);
        if (kraft != null) {
            out.kraftDir = kraft.dir.toString();
            out.nodeId = kraft.nodeId;
            out.listed.addAll(kraft.topics());
            kraft.topicConfigs.forEach((topic, cfg) -> {
                TreeMap<String, String> kept = keep(cfg, NAMES);
                if (!kept.isEmpty()) {
                    out.kraftTopics.put(topic, kept);
                }
            });
            out.node.putAll(keep(kraft.node, BROKER_SYNONYMS));
            out.cluster.putAll(keep(kraft.clusterDefault, BROKER_SYNONYMS));
        }
        JsonNode table;
        try (InputStream in = fs.open(new Path(root, KVLOG_TOPICS))) {
            table = new ObjectMapper().readTree(in);
        } catch (FileNotFoundException e) {
            return out;
        }
        if (table != null && table.isObject()) {
            table.properties().forEach(e -> {
                TreeMap<String, String> cfg = new TreeMap<>();
                for (String name : NAMES) {
                    JsonNode v = e.getValue().path("config").path(name);
                    if (!v.isMissingNode()) {
                        // an integer as it is; anything else as text, refused when it is not an integer
                        cfg.put(name, v.isIntegralNumber() || v.isTextual() ? v.asText() : v.toString());
                    }
                }
                if (!cfg.isEmpty()) {
                    out.kvlogTopics.put(e.getKey(), cfg);
                }
            });
        }
        return out;
    }

    /** The entries of {@code cfg} named in {@code names}: all a plan needs to carry to its tasks. */
    private static TreeMap<String, String> keep(Map<String, String> cfg, String[] names) {
        TreeMap<String, String> kept = new TreeMap<>();
        for (String n : names) {
            if (cfg.containsKey(n)) {
                kept.put(n, cfg.get(n));
            }
        }
        return kept;
    }

    /** {segment.bytes, index.interval.bytes, segment.index.bytes} of {@code topic}. */
    public int[] of(String topic) {
        int[] out = new int[NAMES.length];
        for (int i = 0; i < NAMES.length; i++) {
            out[i] = resolve(topic, i);
        }
        return out;
    }

    /** Each config's value and source for {@code topic}: "name=value (source)" lines, for tests and messages. */
    String explain(String topic) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < NAMES.length; i++) {
            String[] v = pick(topic, i);
            sb.append(NAMES[i]).append('=').append(resolve(topic, i)).append(" (").append(v[1]).append(")\n");
        }
        return sb.toString();
    }

    private int resolve(String topic, int i) {
        String[] v = pick(topic, i);
        String text = v[0].strip();
        String problem = null;
        if (!INTEGER.matcher(text).matches()) {
            problem = "must be an integer, got '" + v[0] + "'";
        } else {
            BigInteger n = new BigInteger(text);
            if (n.compareTo(BigInteger.valueOf(MINIMUM[i])) < 0) {
                problem = "must be at least " + MINIMUM[i] + ", got " + n;
            } else if (n.compareTo(BigInteger.valueOf(Integer.MAX_VALUE)) > 0) {
                problem = "must be at most " + Integer.MAX_VALUE + ", got " + n;
            } else {
                return n.intValue();
            }
        }
        throw new IllegalArgumentException("topic " + topic + ": " + NAMES[i] + " " + problem + " (from " + v[1]
            + ")");
    }

    /** {value, source} of config {@code i} for {@code topic}: the first source that sets it. */
    private String[] pick(String topic, int i) {
        String name = NAMES[i];
        Map<String, String> own = kraftTopics.get(topic);
        if (own != null && own.containsKey(name)) {
            return new String[] {own.get(name), "kraft-metadata: " + kraftDir};
        }
        own = kvlogTopics.get(topic);
        if (own != null && own.containsKey(name)) {
            return new String[] {own.get(name), "kvlog: " + KVLOG_TOPICS};
        }
        if (i == 0 && INTERNAL_SEGMENT_BYTES.containsKey(topic) && !listed.contains(topic)) {
            return new String[] {INTERNAL_SEGMENT_BYTES.get(topic), "internal-topic-default"};
        }
        String synonym = BROKER_SYNONYMS[i];
        if (node.containsKey(synonym)) {
            return new String[] {node.get(synonym), "kraft-metadata: node " + nodeId + " " + synonym};
        }
        if (cluster.containsKey(synonym)) {
            return new String[] {cluster.get(synonym), "kraft-metadata: cluster default " + synonym};
        }
        return new String[] {DEFAULTS[i], "kafka-default"};
    }
}
