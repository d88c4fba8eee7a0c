package io.kvlog.spark.read;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvlog.spark.fs.S3aRoute;
import io.kvlog.spark.log.TopicPartition;
import io.kvlog.spark.tiered.AivenKeyRing;
import io.kvlog.spark.tiered.LocalTieredLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The Kafka-source options of a batch read, parsed and checked once on the driver (as {@code _plan.ReadOptions}). */
public final class ReadOptions {
    static final long EARLIEST = -2;
    static final long LATEST = -1;
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String NO_SUBSCRIPTION = "one of the options subscribe, subscribePattern or assign must be given, as "
        + "for Spark's Kafka source: subscribe=<topic,topic> reads named topics, subscribePattern=<regex> topics by "
        + "name (.* for all but Kafka's internal __ topics), assign=<JSON> partitions";

    List<String> subscribe;
    Pattern subscribePattern;
    Map<String, List<Integer>> assign;
    String startingWord = "earliest";
    Map<TopicPartition, Long> startingOffsets;
    String endingWord = "latest";
    Map<TopicPartition, Long> endingOffsets;
    Long startingTimestamp;
    Long endingTimestamp;
    Map<TopicPartition, Long> startingByTimestamp;
    Map<TopicPartition, Long> endingByTimestamp;
    boolean startAtLatestWhenNoTimestamp;
    boolean failOnDataLoss = true;
    Integer minPartitions;
    Integer maxRecordsPerPartition;
    boolean includeHeaders;
    /** A subscribePattern also matches Kafka's internal topics (__*): includeInternalTopics=true. */
    boolean includeInternalTopics;
    boolean readCommitted;
    Integer maxOffsetsPerTrigger;
    Integer minOffsetsPerTrigger;
    long maxTriggerDelayMs;
    int chunkBytes = 1 << 20;
    /** Read every batch whole and check its CRC, even where a query needs header fields only. */
    boolean verifyChecksums;
    /** {@code kvlog.divergentReplicas=newest}: a cluster's diverged replicas read as the newest leader's history. */
    boolean newestReplicas;
    int maxRowsPerBatch = 4096;
    /** {@code kvlog.backupRun}: read every partition as that run of a kvlog backup holds it (null: the newest). */
    Long backupRun;
    List<String> paths = new ArrayList<>();
    /**
     * {@code kvlog.remoteStorage.layout} (KIP-405 tiered storage): {@link LocalTieredLayout#NAME} or {@code aiven};
     * null: local segments only. With it, {@code kvlog.remoteStorage.path} (the remote storage's root) and
     * optionally {@code kvlog.remoteStorage.metadataPath} (where the {@code __remote_log_metadata-N} directories
     * are; default: the data directory), and for aiven {@code kvlog.remoteStorage.keyPrefix} and
     * {@code kvlog.remoteStorage.keyPairs}.
     */
    String remoteLayout;
    String remotePath;
    String remoteMetadataPath;
    String remoteKeyPrefix;
    String remoteKeyPairs;

    private ReadOptions() {
    }

    /** The most batches a pushed aggregation reads on the driver to answer it whole (0: never). */
    static long completeAggregateBatches(CaseInsensitiveStringMap o) {
        String raw = o.get("kvlog.completeAggregateBatches");
        if (raw == null) {
            return 8192;
        }
        try {
            long v = Long.parseLong(raw.trim());
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw bad("option kvlog.completeAggregateBatches must be a non-negative integer, got '" + raw + "'");
    }

    /** Whether aggregates may be answered from batch headers ({@code kvlog.aggregatePushdown}, default true). */
    static boolean aggregatePushdown(CaseInsensitiveStringMap o) {
        return bool(o, "kvlog.aggregatePushdown", true);
    }

    public static boolean wantsHeaders(CaseInsensitiveStringMap options) {
        return "true".equals(options.getOrDefault("includeHeaders", "false").trim().toLowerCase(Locale.ROOT));
    }

    static ReadOptions parse(CaseInsensitiveStringMap o) {
        return parse(o, false);
    }

    /** Options of a batch read, or of a stream (which starts at latest by default and has no end). */
    static ReadOptions parse(CaseInsensitiveStringMap o, boolean streaming) {
        OptionNames.check(o.keySet());
        ReadOptions r = new ReadOptions();
        List<String> chosen = new ArrayList<>();
        for (String k : new String[] {"subscribe", "subscribePattern", "assign"}) {
            if (o.containsKey(k)) {
                chosen.add(k.toLowerCase(Locale.ROOT));
            }
        }
        if (chosen.isEmpty()) {
            throw bad(NO_SUBSCRIPTION);
        }
        if (chosen.size() > 1) {
            throw bad("options " + String.join(", ", chosen) + " exclude each other: give only one of subscribe, "
                + "subscribePattern or assign");
        }
        if (o.containsKey("subscribe")) {
            r.subscribe = new ArrayList<>();
            for (String t : o.get("subscribe").split(",")) {
                if (!t.trim().isEmpty()) {
                    r.subscribe.add(t.trim());
                }
            }
            if (r.subscribe.isEmpty()) {
                throw bad("option subscribe names no topic: '" + o.get("subscribe") + "'");
            }
        }
        if (o.containsKey("subscribePattern")) {
            String raw = o.get("subscribePattern");
            if (raw.trim().isEmpty()) {
                throw bad("option subscribePattern is empty: '" + raw + "'");
            }
            try {
                r.subscribePattern = Pattern.compile(raw);
            } catch (PatternSyntaxException e) {
                throw bad("option subscribePattern is not a valid regex: " + e.getDescription());
            }
        }
        if (o.containsKey("assign")) {
            r.assign = parseAssign(o.get("assign").trim());
            boolean any = false;
            for (List<Integer> parts : r.assign.values()) {
                any |= !parts.isEmpty();
            }
            if (!any) {
                throw bad("option assign names no partition: '" + o.get("assign").trim() + "'");
            }
        }
        r.includeInternalTopics = bool(o, "includeInternalTopics", false);
        if (o.containsKey("kafka.exclude.internal.topics")) {
            boolean exclude = bool(o, "kafka.exclude.internal.topics", true);
            if (o.containsKey("includeInternalTopics") && exclude == r.includeInternalTopics) {
                throw bad("options includeInternalTopics=" + r.includeInternalTopics + " and kafka.exclude.internal.topics="
                    + exclude + " contradict each other");
            }
            r.includeInternalTopics = !exclude;
        }
        if (streaming) {
            r.startingWord = "latest";
            for (String k : new String[] {"endingOffsets", "endingTimestamp", "endingOffsetsByTimestamp"}) {
                if (o.containsKey(k)) {
                    throw bad("option " + k.toLowerCase(Locale.ROOT) + " is for batch queries only (a stream has no end)");
                }
            }
        }
        String isolation = o.getOrDefault("kafka.isolation.level", "read_uncommitted").trim().toLowerCase(Locale.ROOT);
        if (!isolation.equals("read_uncommitted") && !isolation.equals("read_committed")) {
            throw bad("option kafka.isolation.level must be read_uncommitted or read_committed, got '" + isolation + "'");
        }
        r.readCommitted = isolation.equals("read_committed");
        String s = o.get("startingOffsets");
        if (s != null) {
            String w = s.trim().toLowerCase(Locale.ROOT);
            if (w.equals("earliest") || w.equals("latest")) {
                r.startingWord = w;
            } else {
                r.startingWord = null;
                r.startingOffsets = partitionMap("startingOffsets", s);
            }
        }
        String e = o.get("endingOffsets");
        if (e != null) {
            String w = e.trim().toLowerCase(Locale.ROOT);
            if (w.equals("earliest") || w.equals("latest")) {
                r.endingWord = w;
            } else {
                r.endingWord = null;
                r.endingOffsets = partitionMap("endingOffsets", e);
            }
        }
        if (!streaming && ("latest".equals(r.startingWord)
                || (r.startingOffsets != null && r.startingOffsets.containsValue(LATEST)))) {
            throw bad("startingOffsets latest (-1) is for streaming queries only, as in Spark's Kafka source; "
                + "a batch read starts at earliest or at given offsets");
        }
        if (!streaming && ("earliest".equals(r.endingWord)
                || (r.endingOffsets != null && r.endingOffsets.containsValue(EARLIEST)))) {
            throw bad("endingOffsets earliest (-2) is not allowed, as in Spark's Kafka source");
        }
        if (!streaming && r.startingOffsets != null && r.endingOffsets != null) {
            if (!r.startingOffsets.keySet().equals(r.endingOffsets.keySet())) {
                throw bad("startingOffsets and endingOffsets must name the same partitions");
            }
            for (Map.Entry<TopicPartition, Long> en : r.startingOffsets.entrySet()) {
                long st = en.getValue();
                long en2 = r.endingOffsets.get(en.getKey());
                if (st >= 0 && en2 >= 0 && st > en2) {
                    throw bad("startingOffsets " + st + " is after endingOffsets " + en2 + " for " + en.getKey());
                }
            }
        }
        String strategy = o.getOrDefault("startingOffsetsByTimestampStrategy", "error").trim().toLowerCase(Locale.ROOT);
        if (!strategy.equals("error") && !strategy.equals("latest")) {
            throw bad("option startingOffsetsByTimestampStrategy must be error or latest, got '" + strategy + "'");
        }
        r.startAtLatestWhenNoTimestamp = strategy.equals("latest");
        r.startingTimestamp = timestamp(o, "startingTimestamp");
        r.endingTimestamp = timestamp(o, "endingTimestamp");
        if (o.containsKey("startingOffsetsByTimestamp")) {
            r.startingByTimestamp = partitionMap("startingOffsetsByTimestamp", o.get("startingOffsetsByTimestamp"));
        }
        if (o.containsKey("endingOffsetsByTimestamp")) {
            r.endingByTimestamp = partitionMap("endingOffsetsByTimestamp", o.get("endingOffsetsByTimestamp"));
        }
        r.failOnDataLoss = bool(o, "failOnDataLoss", true);
        r.includeHeaders = bool(o, "includeHeaders", false);
        r.minPartitions = positive(o, "minPartitions");
        r.maxRecordsPerPartition = positive(o, "maxRecordsPerPartition");
        Integer chunk = positive(o, "kvlog.chunkBytes");
        r.chunkBytes = chunk != null ? chunk : r.chunkBytes;
        r.verifyChecksums = bool(o, "kvlog.verifyChecksums", false);
        String divergent = o.get("kvlog.divergentReplicas");
        if (divergent != null && !divergent.equalsIgnoreCase("raise") && !divergent.equalsIgnoreCase("newest")) {
            throw new IllegalArgumentException("option kvlog.divergentReplicas=" + divergent + ": it is raise or newest");
        }
        r.newestReplicas = divergent != null && divergent.equalsIgnoreCase("newest");
        aggregatePushdown(o); // validated here too, so a bad value fails every query, not only aggregates
        completeAggregateBatches(o);
        Integer rows = positive(o, "kvlog.maxRowsPerBatch");
        r.maxRowsPerBatch = rows != null ? rows : r.maxRowsPerBatch;
        r.backupRun = positiveLong(o, "kvlog.backupRun");
        if (r.backupRun != null && streaming) {
            throw bad("option kvlog.backupRun (" + r.backupRun + ") is for batch queries only: a backup run never "
                + "grows, so a stream of it would never see a new record (stream the newest run instead)");
        }
        r.maxOffsetsPerTrigger = positive(o, "maxOffsetsPerTrigger");
        r.minOffsetsPerTrigger = positive(o, "minOffsetsPerTrigger");
        r.maxTriggerDelayMs = durationMs(o.getOrDefault("maxTriggerDelay", "15m"));
        if (r.maxOffsetsPerTrigger != null && r.minOffsetsPerTrigger != null
                && r.minOffsetsPerTrigger > r.maxOffsetsPerTrigger) {
            throw bad("minOffsetsPerTrigger (" + r.minOffsetsPerTrigger + ") is larger than maxOffsetsPerTrigger ("
                + r.maxOffsetsPerTrigger + ")");
        }
        r.paths = paths(o);
        remoteStorage(o, r);
        return r;
    }

    static final String AIVEN = "aiven";

    private static void remoteStorage(CaseInsensitiveStringMap o, ReadOptions r) {
        String layout = o.get("kvlog.remoteStorage.layout");
        r.remotePath = S3aRoute.path(blankless(o.get("kvlog.remoteStorage.path")));
        r.remoteMetadataPath = S3aRoute.path(blankless(o.get("kvlog.remoteStorage.metadataPath")));
        r.remoteKeyPrefix = o.get("kvlog.remoteStorage.keyPrefix");
        r.remoteKeyPairs = blankless(o.get("kvlog.remoteStorage.keyPairs"));
        if (layout == null) {
            for (String k : new String[] {"kvlog.remoteStorage.path", "kvlog.remoteStorage.metadataPath",
                "kvlog.remoteStorage.keyPrefix", "kvlog.remoteStorage.keyPairs"}) {
                if (o.containsKey(k)) {
                    throw bad("option " + k + " needs kvlog.remoteStorage.layout (LocalTieredStorage or aiven) "
                        + "to say how the remote storage is laid out");
                }
            }
            return;
        }
        String l = layout.trim().toLowerCase(Locale.ROOT);
        if (l.equals(LocalTieredLayout.NAME.toLowerCase(Locale.ROOT))) {
            r.remoteLayout = LocalTieredLayout.NAME;
        } else if (l.equals(AIVEN)) {
            r.remoteLayout = AIVEN;
        } else {
            throw bad("option kvlog.remoteStorage.layout must be LocalTieredStorage or aiven (the remote storage "
                + "managers kvlog reads), got '" + layout + "'");
        }
        if (r.remotePath == null) {
            throw bad("option kvlog.remoteStorage.layout=" + layout + " needs kvlog.remoteStorage.path, the root of "
                + "the remote storage");
        }
        if (r.remoteLayout.equals(LocalTieredLayout.NAME) && (r.remoteKeyPrefix != null || r.remoteKeyPairs != null)) {
            throw bad("options kvlog.remoteStorage.keyPrefix and kvlog.remoteStorage.keyPairs are for the aiven layout "
                + "only");
        }
        if (r.remoteLayout.equals(AIVEN)) {
            try {
                AivenKeyRing.parseOption(r.remoteKeyPairs);
            } catch (IllegalArgumentException e) {
                throw bad(e.getMessage());
            }
        }
    }

    private static String blankless(String v) {
        return v == null || v.isBlank() ? null : v.trim();
    }

    private static List<String> paths(CaseInsensitiveStringMap o) {
        List<String> out = new ArrayList<>();
        String many = o.get("paths");
        if (many != null && !many.isEmpty()) {
            try {
                for (JsonNode n : JSON.readTree(many)) {
                    out.add(S3aRoute.path(n.asText()));
                }
            } catch (java.io.IOException ex) {
                throw bad("paths must be a JSON list, got '" + many + "'");
            }
        }
        String one = o.get("path");
        if (one != null && !one.isEmpty()) {
            out.add(0, S3aRoute.path(one)); // an S3 URI's credentials and query are S3A settings (KvlogSource)
        }
        if (out.isEmpty()) {
            throw bad("give the data directory (or a partition directory) to load(), e.g. load('/data/kvlog')");
        }
        return out;
    }

    private static final Pattern DURATION = Pattern.compile("\\s*(\\d+)\\s*([a-z]*)\\s*");

    /** Spark's time strings (15m, 30s, 500ms, 1 hour); a bare number is milliseconds. */
    private static long durationMs(String raw) {
        java.util.regex.Matcher m = DURATION.matcher(raw.toLowerCase(Locale.ROOT));
        if (m.matches()) {
            long unit = switch (m.group(2)) {
                case "", "ms" -> 1L;
                case "s", "sec", "second", "seconds" -> 1000L;
                case "m", "min", "minute", "minutes" -> 60_000L;
                case "h", "hour", "hours" -> 3_600_000L;
                case "d", "day", "days" -> 86_400_000L;
                default -> -1L;
            };
            if (unit > 0) {
                return Long.parseLong(m.group(1)) * unit;
            }
        }
        throw bad("option maxTriggerDelay must be a duration like 15m, 30s or 500ms, got '" + raw + "'");
    }

    private static Map<String, List<Integer>> parseAssign(String raw) {
        String msg = "option assign must be JSON like {\"topicA\":[0,1]}, got '" + raw + "'";
        if (!raw.startsWith("{")) {
            throw bad(msg);
        }
        try {
            Map<String, List<Integer>> out = new LinkedHashMap<>();
            JsonNode root = JSON.readTree(raw);
            for (Map.Entry<String, JsonNode> en : root.properties()) {
                if (!en.getValue().isArray()) {
                    throw bad(msg);
                }
                List<Integer> parts = new ArrayList<>();
                for (JsonNode p : en.getValue()) {
                    if (!p.canConvertToInt()) {
                        throw bad(msg);
                    }
                    parts.add(p.asInt());
                }
                out.put(en.getKey(), parts);
            }
            return out;
        } catch (java.io.IOException ex) {
            throw bad(msg);
        }
    }

    private static Map<TopicPartition, Long> partitionMap(String name, String raw) {
        String msg = "option " + name + " must be JSON like {\"topic\":{\"0\":23}}, got '" + raw + "'";
        try {
            JsonNode root = JSON.readTree(raw);
            if (root == null || !root.isObject()) {
                throw bad(msg);
            }
            Map<TopicPartition, Long> out = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> t : root.properties()) {
                if (!t.getValue().isObject()) {
                    throw bad(msg);
                }
                for (Map.Entry<String, JsonNode> p : t.getValue().properties()) {
                    if (!p.getValue().isIntegralNumber()) {
                        throw bad(msg);
                    }
                    out.put(new TopicPartition(t.getKey(), Integer.parseInt(p.getKey().trim())), p.getValue().asLong());
                }
            }
            return out;
        } catch (java.io.IOException | NumberFormatException ex) {
            throw bad(msg);
        }
    }

    private static Long timestamp(CaseInsensitiveStringMap o, String name) {
        String raw = o.get(name);
        if (raw == null) {
            return null;
        }
        try {
            return Long.parseLong(raw.trim());
        } catch (NumberFormatException ex) {
            throw bad("option " + name + " must be a timestamp in epoch milliseconds, got '" + raw + "'");
        }
    }

    private static boolean bool(CaseInsensitiveStringMap o, String name, boolean dflt) {
        String raw = o.get(name);
        if (raw == null) {
            return dflt;
        }
        String v = raw.trim().toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false")) {
            throw bad("option " + name + " must be true or false, got '" + raw + "'");
        }
        return v.equals("true");
    }

    private static Integer positive(CaseInsensitiveStringMap o, String name) {
        String raw = o.get(name);
        if (raw == null) {
            return null;
        }
        int v;
        try {
            v = Integer.parseInt(raw.trim());
        } catch (NumberFormatException ex) {
            throw bad("option " + name + " must be a positive integer, got '" + raw + "'");
        }
        if (v <= 0) {
            throw bad("option " + name + " must be a positive integer, got '" + raw + "'");
        }
        return v;
    }

    private static Long positiveLong(CaseInsensitiveStringMap o, String name) {
        String raw = o.get(name);
        if (raw == null) {
            return null;
        }
        long v;
        try {
            v = Long.parseLong(raw.trim());
        } catch (NumberFormatException ex) {
            throw bad("option " + name + " must be a positive integer, got '" + raw + "'");
        }
        if (v <= 0) {
            throw bad("option " + name + " must be a positive integer, got '" + raw + "'");
        }
        return v;
    }

    private static IllegalArgumentException bad(String msg) {
        return new IllegalArgumentException(msg);
    }
}
