package io.kvlog.spark.write;

import io.kvlog.spark.format.RecordBatchV2Encoder;
import io.kvlog.spark.fs.ExclusiveCreate;
import io.kvlog.spark.fs.HadoopConf;
import io.kvlog.spark.fs.LogFileSystems;
import io.kvlog.spark.fs.S3aRoute;
import io.kvlog.spark.log.CommittedOffsets;
import io.kvlog.spark.log.CorruptLogException;
import io.kvlog.spark.log.LocalLog;
import io.kvlog.spark.log.LogDiscovery;
import io.kvlog.spark.log.LogStartCheckpoint;
import io.kvlog.spark.log.TopicPartition;
import io.kvlog.spark.metadata.TopicSegmentConfigs;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.types.StructType;

/**
 * What every task of a JVM sink write needs, fixed on the driver when the write is planned: the data directory,
 * the job, how rows are routed (topic option, partition counts) and encoded, and where each existing partition's
 * new records start (its committed end offset). Planning also takes the write's lease, makes the directory
 * governed by {@link CommittedOffsets} (a directory no kvlog sink wrote to is first committed as it is, so that
 * files a failed job leaves behind are never read) and removes such leftovers.
 */
final class SinkPlan implements Serializable {
    private static final long serialVersionUID = 1L;
    static final String LEASE_PREFIX = "kvlog-write-lease.";
    /** The job name of the version that first governs a directory (never a job's own: see takeLease). */
    static final String GOVERN_SUFFIX = ".govern";
    static final long DEFAULT_LEASE_TIMEOUT_MS = 24L * 3600 * 1000;
    static final Set<String> INTERNAL_TOPICS = Set.of("__consumer_offsets", "__transaction_state",
        "__cluster_metadata", "__remote_log_metadata", "__share_group_state");
    private static final Pattern LEGAL = Pattern.compile("^[a-zA-Z0-9._-]{1,249}$");
    private static final Set<String> SEGMENT_SUFFIXES = Set.of(".log", ".index", ".timeindex", ".txnindex",
        ".snapshot");

    final String root;
    final String job;
    final String topicOption;
    final int defaultPartitions;
    final TreeMap<String, Integer> partitionCounts;
    /** Every partition of the directory at planning: its committed (log start, end). */
    final TreeMap<TopicPartition, CommittedOffsets.Range> ranges;
    final long version;
    final int codec;
    final int recordsPerBatch;
    final int maxBatchBytes;
    final TopicSegmentConfigs segmentConfigs;
    final boolean overwrite;
    final HashMap<String, String> conf;
    final String sinkId;

    private SinkPlan(String root, String job, String topicOption, int defaultPartitions,
                     TreeMap<String, Integer> counts, TreeMap<TopicPartition, CommittedOffsets.Range> ranges,
                     long version, int codec, int recordsPerBatch, int maxBatchBytes,
                     TopicSegmentConfigs segmentConfigs, boolean overwrite, HashMap<String, String> conf,
                     String sinkId) {
        this.root = root;
        this.job = job;
        this.topicOption = topicOption;
        this.defaultPartitions = defaultPartitions;
        this.partitionCounts = counts;
        this.ranges = ranges;
        this.version = version;
        this.codec = codec;
        this.recordsPerBatch = recordsPerBatch;
        this.maxBatchBytes = maxBatchBytes;
        this.segmentConfigs = segmentConfigs;
        this.overwrite = overwrite;
        this.conf = conf;
        this.sinkId = sinkId;
    }

    int partitionsOf(String topic) {
        Integer n = partitionCounts.get(topic);
        return n != null ? n : defaultPartitions;
    }

    /** How this write's rows are routed and encoded. */
    SinkRouting routing() {
        return new SinkRouting(topicOption, defaultPartitions, partitionCounts, codec, recordsPerBatch, maxBatchBytes,
            SinkRouting.DEFAULT_MAX_OPEN_BYTES); // the writers' own encoders are not bounded by it
    }

    /** Whether an overwrite empties {@code topic}: the topic option's, or one this job wrote rows to. */
    boolean topicOverwritten(String topic, java.util.Collection<TopicPartition> written) {
        return topic.equals(topicOption) || written.stream().anyMatch(tp -> tp.topic().equals(topic));
    }

    /** Where a partition's new records start: its committed end (0 for a partition the write creates). */
    long startOf(TopicPartition tp) {
        CommittedOffsets.Range r = ranges.get(tp);
        return r == null ? 0 : r.end();
    }

    /** {segment.bytes, index.interval.bytes, segment.index.bytes} of a topic (see {@link TopicSegmentConfigs}). */
    int[] segmentConfig(String topic) {
        return segmentConfigs.of(topic);
    }

    Path rootPath() {
        return new Path(root);
    }

    Path dir(TopicPartition tp) {
        return new Path(rootPath(), tp.topic() + "-" + tp.partition());
    }

    Path lease() {
        return new Path(rootPath(), LEASE_PREFIX + job);
    }

    /** Kafka's topic naming rules and the sink's refusal of internal topics (brokers refuse to produce there). */
    static void checkTopic(String t) {
        if (t == null || !LEGAL.matcher(t).matches() || t.equals(".") || t.equals("..")) {
            throw new IllegalArgumentException("illegal Kafka topic name " + (t == null ? "null" : "'" + t + "'")
                + ": 1 to 249 characters of a-z, A-Z, 0-9, '.', '_', '-', not '.' or '..'");
        }
        if (INTERNAL_TOPICS.contains(t)) {
            throw new IllegalArgumentException("the kvlog sink does not write to the internal topic '" + t
                + "': Kafka's brokers refuse produce requests to internal topics, and rows written there as an "
                + "ordinary topic's records would corrupt it");
        }
    }

    /** The input columns the sink needs, with types it reads, before Spark plans anything around them. */
    static void checkColumns(Map<String, String> options, StructType schema) {
        Map<String, String> opts = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        opts.putAll(options);
        List<String> names = List.of(schema.fieldNames());
        if (!names.contains("value")) {
            throw new IllegalArgumentException("the kvlog sink needs a 'value' column (binary or string), as Spark's "
                + "Kafka sink does");
        }
        for (String part : List.of("key", "value")) {
            String format = opts.get(part + "Format");
            if (format != null && !format.trim().equalsIgnoreCase("binary")) {
                throw new IllegalArgumentException("the JVM sink writes " + part + "s as given (binary or string); "
                    + "option " + part + "Format=" + format + " (typed " + part + "s encoded in a schema registry's "
                    + "wire format) is the Python sink's: use format(\"kvlog_python\")");
            }
        }
        String topicOption = opts.get("topic");
        if (topicOption != null) {
            checkTopic(topicOption);
        } else if (!names.contains("topic")) {
            throw new IllegalArgumentException("give the target topic with option('topic', ...) or a 'topic' column");
        }
        for (int i = 0; i < schema.fields().length; i++) {
            SinkRows.Column.of(schema.fields()[i].dataType(), i, schema.fields()[i].name());
        }
        defaultPartitions(options);
        RecordBatchV2Encoder.codecId(opts.getOrDefault("compression", opts.getOrDefault("kafka.compression.type",
            "none")));
    }

    /** Checks the input columns, takes the lease, governs the directory and captures where partitions end. */
    static SinkPlan plan(Map<String, String> options, StructType schema, boolean overwrite, Configuration conf,
                         String sinkId, Map<String, Integer> routedCounts) throws IOException {
        Map<String, String> opts = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        opts.putAll(options);
        String raw = S3aRoute.path(opts.get("path")); // an S3 URI's credentials and query: S3A settings (KvlogSource)
        if (raw == null || raw.isEmpty()) {
            throw new IllegalArgumentException("give the data directory to save()/start(), e.g. "
                + "df.write.format('kvlog').mode('append').save('/data')");
        }
        checkColumns(options, schema);
        String topicOption = opts.get("topic");
        int defaultPartitions = positive(opts.getOrDefault("partitions", "1"), "partitions");
        // the batch encoding, parsed once for both sides of the exchange (SinkRouting)
        SinkRouting encoding = SinkRouting.of(options, new TreeMap<>(routedCounts), batchLimit(options, conf));
        long leaseTimeout = Long.parseLong(opts.getOrDefault("kvlog.leaseTimeoutMs",
            String.valueOf(DEFAULT_LEASE_TIMEOUT_MS)));

        Path rootPath = new Path(raw);
        FileSystem fs = ExclusiveCreate.raw(LogFileSystems.of(rootPath, conf));
        ExclusiveCreate.mkdirs(fs, rootPath);
        rootPath = fs.makeQualified(rootPath);
        String job = (sinkId != null ? "stream-" + sinkId : "batch") + "-" + UUID.randomUUID();
        takeLease(fs, rootPath, job, topicOption, sinkId, leaseTimeout);
        try {
            TopicSegmentConfigs segmentConfigs = TopicSegmentConfigs.load(fs, rootPath);
            if (topicOption != null) {
                segmentConfigs.of(topicOption); // a value Kafka would refuse fails the write here, not in its tasks
            }
            for (int attempt = 0; ; attempt++) {
                CommittedOffsets latest = CommittedOffsets.latest(fs, rootPath);
                Map<TopicPartition, Path> found = LogDiscovery.discoverIfAny(rootPath, conf);
                TreeMap<TopicPartition, CommittedOffsets.Range> ranges = new TreeMap<>();
                boolean governed = latest.version > 0;
                Map<TopicPartition, Long> starts = governed ? Map.of() : LogStartCheckpoint.read(fs, rootPath);
                if (governed && !latest.released.isEmpty()) {
                    starts = LogStartCheckpoint.read(fs, rootPath);
                }
                for (Map.Entry<TopicPartition, Path> e : found.entrySet()) {
                    // a partition a broker served since the last commit (CommittedOffsets.releasedByBroker) is taken
                    // as it is, as in a directory no sink wrote: the broker's records past the old end stay
                    ranges.put(e.getKey(), latest.governs(e.getKey()) ? latest.partitions.getOrDefault(e.getKey(),
                        new CommittedOffsets.Range(0, 0))
                        : currentRange(fs, e.getValue(), e.getKey(), starts.getOrDefault(e.getKey(), 0L)));
                }
                if (governed) {
                    latest.partitions.forEach(ranges::putIfAbsent);
                }
                long version = latest.version;
                if (!governed && !ranges.isEmpty()) {
                    version = latest.maxListed + 1; // the directory as it is becomes version 1 of what is committed
                    // under a name of its own: the job's lease is released by a version holding its records only
                    if (!CommittedOffsets.publish(fs, rootPath, version,
                            CommittedOffsets.format(version, job + GOVERN_SUFFIX, ranges, Map.of()))) {
                        if (attempt < 5) {
                            continue;
                        }
                        throw new IllegalStateException("another writer keeps committing to " + rootPath);
                    }
                }
                for (Map.Entry<TopicPartition, CommittedOffsets.Range> e : ranges.entrySet()) {
                    // only where this job may write: never an internal topic (the sink refuses them; a broker's
                    // files there are not a failed job's), and only the topic named when one is
                    String t = e.getKey().topic();
                    if (!INTERNAL_TOPICS.contains(t) && (topicOption == null || topicOption.equals(t))) {
                        removeUncommitted(fs, new Path(rootPath, e.getKey().toString()), e.getValue().end());
                    }
                }
                TreeMap<String, Integer> counts = new TreeMap<>(routedCounts);
                ranges.keySet().forEach(tp -> counts.merge(tp.topic(), tp.partition() + 1, Math::max));
                if (!counts.equals(routedCounts)) {
                    throw new IllegalStateException("the partitions of " + rootPath + " changed while this write was "
                        + "planned (now " + counts + ", rows routed for " + routedCounts + "); write again");
                }
                return new SinkPlan(rootPath.toString(), job, topicOption, defaultPartitions, counts, ranges,
                    version, encoding.codec(), encoding.recordsPerBatch(), encoding.maxBatchBytes(), segmentConfigs,
                    overwrite, HadoopConf.changes(conf),
                    sinkId);
            }
        } catch (IOException | RuntimeException e) {
            releaseLease(fs, new Path(rootPath, LEASE_PREFIX + job));
            throw e;
        }
    }

    /** Each topic's partition count as routing sees it: its highest partition directory + 1. */
    static TreeMap<String, Integer> partitionCounts(Map<String, String> options, Configuration conf)
            throws IOException {
        Map<String, String> opts = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        opts.putAll(options);
        String raw = S3aRoute.path(opts.get("path")); // an S3 URI's credentials and query: S3A settings (KvlogSource)
        TreeMap<String, Integer> counts = new TreeMap<>();
        if (raw == null || raw.isEmpty()) {
            return counts;
        }
        Path root = new Path(raw);
        LogDiscovery.discoverIfAny(root, conf).keySet()
            .forEach(tp -> counts.merge(tp.topic(), tp.partition() + 1, Math::max));
        return counts;
    }

    /**
     * The largest uncompressed batch the sink may encode for the topics this write can reach: each one's
     * segment.bytes (Kafka refuses a batch above it, and a segment holds whole batches) with room for a codec's
     * framing of incompressible records; the topic option's alone, else every topic of the directory and the
     * default for new ones. {@link Integer#MAX_VALUE} without a path.
     */
    static int batchLimit(Map<String, String> options, Configuration conf) throws IOException {
        Map<String, String> opts = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        opts.putAll(options);
        String raw = S3aRoute.path(opts.get("path")); // an S3 URI's credentials and query: S3A settings (KvlogSource)
        if (raw == null || raw.isEmpty()) {
            return Integer.MAX_VALUE;
        }
        Path root = new Path(raw);
        FileSystem fs = LogFileSystems.of(root, conf);
        if (!fs.exists(root)) {
            return Integer.MAX_VALUE;
        }
        TopicSegmentConfigs configs = TopicSegmentConfigs.load(fs, fs.makeQualified(root));
        java.util.Collection<String> topics = opts.get("topic") != null ? List.of(opts.get("topic"))
            : partitionCounts(options, conf).keySet();
        long limit = opts.get("topic") != null ? Long.MAX_VALUE : configs.of("")[0];
        for (String t : topics) {
            limit = Math.min(limit, configs.of(t)[0]);
        }
        limit = limit - limit / 64 - 64;
        return (int) Math.max(RecordBatchV2Encoder.HEADER_SIZE, Math.min(Integer.MAX_VALUE, limit));
    }

    static int defaultPartitions(Map<String, String> options) {
        Map<String, String> opts = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        opts.putAll(options);
        return positive(opts.getOrDefault("partitions", "1"), "partitions");
    }

    static int positive(String v, String name) {
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("option " + name + " must be a positive integer, got '" + v + "'");
    }

    /** An ungoverned partition as it is: its log start (checkpoint or first segment) and end (last valid batch). */
    private static CommittedOffsets.Range currentRange(FileSystem fs, Path dir, TopicPartition tp, long checkpointed)
            throws IOException {
        LocalLog log;
        try {
            log = LocalLog.open(fs, dir, checkpointed, -1, false, false, 1 << 20, false, true, null);
        } catch (CorruptLogException e) {
            throw new IllegalStateException("partition " + tp + " ends in bytes that are not a whole record batch ("
                + e.getMessage() + "); recover it first (kvlog repair " + dir + ", or open it for writing with "
                + "kvlog.Log.open), then write again: new records must follow the last valid batch", e);
        }
        return new CommittedOffsets.Range(log.logStartOffset, log.logEndOffset);
    }

    /** Deletes a partition's segment files at or past {@code end}: a failed or abandoned write's, never read. */
    static void removeUncommitted(FileSystem fs, Path dir, long end) throws IOException {
        FileStatus[] listing;
        try {
            listing = fs.listStatus(dir);
        } catch (FileNotFoundException e) {
            return;
        }
        for (FileStatus st : listing) {
            String n = st.getPath().getName();
            int dot = n.indexOf('.');
            if (dot == 20 && SEGMENT_SUFFIXES.contains(n.substring(20))
                    && n.substring(0, 20).chars().allMatch(Character::isDigit)
                    && Long.parseLong(n.substring(0, 20)) >= end + (n.endsWith(".snapshot") ? 1 : 0)) {
                // a producer snapshot at the end offset itself is committed state (the state before it)
                fs.delete(st.getPath(), false);
            }
        }
    }

    /**
     * Refuses while another write's live lease covers the topic, then takes this job's, then looks again: two jobs
     * that took theirs at the same moment each see the other's (a listing after one's own create shows it), and at
     * least one steps back, so two never both go on (both may step back; each then fails with a clear error).
     */
    private static void takeLease(FileSystem fs, Path root, String job, String topic, String sinkId, long timeout)
            throws IOException {
        long now = System.currentTimeMillis();
        refuseOtherLeases(fs, root, job, topic, sinkId, timeout, now);
        byte[] text = (now + " " + (topic == null ? "*" : topic) + " " + (sinkId == null ? "-" : sinkId) + "\n")
            .getBytes(StandardCharsets.UTF_8);
        Path mine = new Path(root, LEASE_PREFIX + job);
        try (OutputStream out = ExclusiveCreate.create(fs, mine, 4096)) {
            out.write(text);
        }
        try {
            refuseOtherLeases(fs, root, job, topic, sinkId, timeout, now);
        } catch (IllegalStateException e) {
            releaseLease(fs, mine);
            throw new IllegalStateException("another kvlog write took a lease on " + root + " at the same moment as "
                + "this one; neither may interleave with the other, so this one stepped back: write again ("
                + e.getMessage() + ")", e);
        }
    }

    private static void refuseOtherLeases(FileSystem fs, Path root, String job, String topic, String sinkId,
                                          long timeout, long now) throws IOException {
        java.util.Set<String> committed = null;
        for (FileStatus st : fs.listStatus(root)) {
            String n = st.getPath().getName();
            if (!n.startsWith(LEASE_PREFIX) || n.equals(LEASE_PREFIX + job)) {
                continue;
            }
            if (committed == null) {
                committed = CommittedOffsets.committedJobs(fs, root);
            }
            if (committed.contains(n.substring(LEASE_PREFIX.length()))) {
                releaseLease(fs, st.getPath()); // its job published, then its driver died before letting go
                continue;
            }
            String[] f;
            try (InputStream in = fs.open(st.getPath())) {
                f = new String(in.readNBytes(4096), StandardCharsets.UTF_8).trim().split(" ");
            } catch (FileNotFoundException e) {
                continue; // released meanwhile
            }
            if (f.length < 3) {
                continue; // torn: its writer died while taking it
            }
            long taken = Long.parseLong(f[0]);
            String theirTopic = f[1];
            String theirSink = f[2];
            if (theirSink.equals("local") && f.length >= 5 && f[3].equals(localHost())) {
                if (!processAlive(f[4])) {
                    releaseLease(fs, st.getPath()); // a local writer that died without closing its logs
                    continue;
                }
                throw new IllegalStateException("a local kvlog writer (process " + f[4] + " on " + f[3] + ") has "
                    + root + " open for writing: close its logs (Log.close, LogManager.close) before a Spark job "
                    + "writes here; two writers of one partition would assign the same offsets");
            }
            boolean sameQuery = sinkId != null && sinkId.equals(theirSink);
            boolean overlaps = theirTopic.equals("*") || topic == null || theirTopic.equals(topic);
            if (!sameQuery && overlaps && now - taken < timeout) {
                throw new IllegalStateException("another kvlog write is in progress on " + root + " (lease "
                    + st.getPath().getName() + ", taken " + java.time.Instant.ofEpochMilli(taken) + ", topic "
                    + theirTopic + "): two writes to one partition may not interleave. If that job is dead, delete "
                    + st.getPath() + " (or set kvlog.leaseTimeoutMs lower) and write again");
            }
        }
    }

    /** This machine's name as Python's {@code socket.gethostname()} gives it (the kernel's node name). */
    static String localHost() {
        try {
            String n = new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(
                "/proc/sys/kernel/hostname")), StandardCharsets.UTF_8).trim();
            if (!n.isEmpty()) {
                return n.replaceAll("[^A-Za-z0-9._-]", "_");
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the resolver's name
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "_");
        } catch (java.net.UnknownHostException e) {
            return "localhost";
        }
    }

    private static boolean processAlive(String pid) {
        try {
            return ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
        } catch (NumberFormatException e) {
            return true; // unreadable: do not guess it away
        }
    }

    static void releaseLease(FileSystem fs, Path lease) {
        try {
            fs.delete(lease, false);
        } catch (IOException e) {
            // a lease left behind only delays the next write until it times out
        }
    }
}
