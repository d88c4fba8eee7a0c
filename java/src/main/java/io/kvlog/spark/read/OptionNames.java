package io.kvlog.spark.read;

import io.kvlog.spark.fs.LogFileSystems;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The option names a kvlog read takes, and the rule that turns a misspelt one into an error; the Python source
 * ({@code kvlog.spark._options}) holds the same lists and applies the same rule.
 *
 * <p>A key that is not a known option is refused, naming the option it most likely meant, when it is within a
 * small edit distance of a known name (insert, delete, substitute, or swap two neighbouring characters: at most 1
 * for names of up to 6 characters, else 2), or when it is a known name with the {@code kvlog.} or {@code kafka.}
 * prefix added or left out. Names are compared lower-cased (Spark's options are case-insensitive). Other unknown
 * keys are ignored, as Spark's sources ignore options they do not know.
 */
public final class OptionNames {
    /** Options a kvlog read acts on. */
    static final List<String> READ = List.of(
        "subscribe", "subscribePattern", "assign",
        "startingOffsets", "endingOffsets", "startingTimestamp", "endingTimestamp",
        "startingOffsetsByTimestamp", "endingOffsetsByTimestamp", "startingOffsetsByTimestampStrategy",
        "failOnDataLoss", "minPartitions", "maxRecordsPerPartition", "includeHeaders",
        "maxOffsetsPerTrigger", "minOffsetsPerTrigger", "maxTriggerDelay",
        "kafka.isolation.level", "includeInternalTopics", "kafka.exclude.internal.topics",
        "kvlog.chunkBytes", "kvlog.maxRowsPerBatch", "kvlog.verifyChecksums", "kvlog.aggregatePushdown",
        "kvlog.completeAggregateBatches", "kvlog.backupRun", "kvlog.divergentReplicas",
        "kvlog.remoteStorage.layout", "kvlog.remoteStorage.path", "kvlog.remoteStorage.metadataPath",
        "kvlog.remoteStorage.keyPrefix", "kvlog.remoteStorage.keyPairs",
        "keyFormat", "valueFormat", "keySchema", "valueSchema", "keySubject", "valueSubject", "keyMessage",
        "valueMessage", "schemas", "errors");
    /** Options Spark itself passes: load(path) and load([a, b]). */
    static final List<String> SPARK = List.of("path", "paths");
    /** Options of Spark's Kafka source that only concern a broker connection: accepted, without effect. */
    static final List<String> KAFKA_ONLY = List.of(
        "kafka.bootstrap.servers", "kafkaConsumer.pollTimeoutMs", "fetchOffset.numRetries",
        "fetchOffset.retryIntervalMs", "groupIdPrefix", "kafka.group.id");
    private static final String[] PREFIXES = {"kvlog.", "kafka."};
    /** Kafka's own topics (__consumer_offsets, __transaction_state, __cluster_metadata, ...) start with this. */
    static final String INTERNAL_PREFIX = "__";

    private OptionNames() {
    }

    /** Every known name, as documented (for the test that holds both engines to the same lists). */
    public static List<String> known() {
        List<String> all = new ArrayList<>(READ);
        all.addAll(SPARK);
        all.addAll(KAFKA_ONLY);
        return Collections.unmodifiableList(all);
    }

    /** A path as the sources' messages show it: a URI without credentials or query (as kvlog.storage.canonical). */
    public static String shownPath(String raw) {
        return LogFileSystems.shown(raw);
    }

    static boolean isInternalTopic(String topic) {
        return topic.startsWith(INTERNAL_PREFIX);
    }

    /** Edits (insert, delete, substitute, swap of two neighbours) that turn {@code a} into {@code b}. */
    static int editDistance(String a, String b) {
        int[] prev2 = new int[b.length() + 1];
        int[] prev = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            int[] cur = new int[b.length() + 1];
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(prev[j] + 1, cur[j - 1] + 1), prev[j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    cur[j] = Math.min(cur[j], prev2[j - 2] + 1);
                }
            }
            prev2 = prev;
            prev = cur;
        }
        return prev[b.length()];
    }

    private static String unprefixed(String key) {
        for (String p : PREFIXES) {
            if (key.startsWith(p)) {
                return key.substring(p.length());
            }
        }
        return key;
    }

    /** The known names an unknown {@code key} most likely meant, sorted (empty when known or far from all). */
    public static List<String> suggestions(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        List<String> names = known();
        for (String n : names) {
            if (n.toLowerCase(Locale.ROOT).equals(k)) {
                return List.of();
            }
        }
        int best = Integer.MAX_VALUE;
        List<String> out = new ArrayList<>();
        for (String name : names) {
            String n = name.toLowerCase(Locale.ROOT);
            int d;
            if (unprefixed(k).equals(unprefixed(n))) {
                d = 0;
            } else {
                d = editDistance(k, n);
                if (d > (n.length() <= 6 ? 1 : 2)) {
                    continue;
                }
            }
            if (d < best) {
                best = d;
                out.clear();
            }
            if (d == best) {
                out.add(name);
            }
        }
        Collections.sort(out);
        return out;
    }

    /** Refuses any key that looks like a misspelt known option. */
    static void check(Set<String> keys) {
        for (String key : new TreeSet<>(keys)) {
            List<String> near = suggestions(key);
            if (!near.isEmpty()) {
                String meant = near.size() == 1 ? near.get(0) : "one of " + String.join(", ", near);
                throw new IllegalArgumentException("unknown option '" + key.toLowerCase(Locale.ROOT) + "': did you mean "
                    + meant + "? (option names are case-insensitive)");
            }
        }
    }
}
