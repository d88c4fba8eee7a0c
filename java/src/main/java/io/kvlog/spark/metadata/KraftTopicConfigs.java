package io.kvlog.spark.metadata;

import io.kvlog.spark.format.BatchFormatException;
import io.kvlog.spark.log.BatchDecoder;
import io.kvlog.spark.log.CommittedOffsets;
import io.kvlog.spark.log.CorruptLogException;
import io.kvlog.spark.log.LocalLog;
import io.kvlog.spark.log.SegmentList;
import io.kvlog.spark.log.SegmentStream;
import io.kvlog.spark.log.TopicPartition;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The config state of a KRaft broker's metadata log ({@code __cluster_metadata-0} in the data directory): topic
 * configs, the cluster-wide and this node's dynamic broker configs, and which topics exist. A Kafka 4 broker keeps
 * topic configs there, not beside the data, so a writer that rolls segments by {@code segment.bytes} must replay
 * it. Replayed as {@code kvlog.topic_configs.read_kraft_configs} does: the newest snapshot
 * ({@code <end offset>-<epoch>.checkpoint}, record batches like a segment), then the log from the snapshot's end
 * offset; a {@code ConfigRecord} with a null value deletes the config, a {@code RemoveTopicRecord} drops the
 * topic and its configs, records between {@code BeginTransactionRecord} and {@code AbortTransactionRecord} are
 * dropped. Every batch's CRC is checked. Damage is a {@link CorruptLogException} naming the file and position,
 * never a guess: configs resolved from half a metadata log would roll segments where the broker does not.
 */
final class KraftTopicConfigs {
    static final String TOPIC = "__cluster_metadata";
    static final int TOPIC_RESOURCE = 2;
    static final int BROKER_RESOURCE = 4;
    private static final Pattern PARTITION_DIR = Pattern.compile("__cluster_metadata-(0|[1-9][0-9]{0,9})");
    private static final Pattern SNAPSHOT = Pattern.compile("(\\d{20})-(\\d{10})\\.checkpoint");

    /** The {@code __cluster_metadata-N} directory read. */
    final Path dir;
    /** Topic name -> config name -> value (a removed topic's configs went with it). */
    final TreeMap<String, TreeMap<String, String>> topicConfigs = new TreeMap<>();
    /** Dynamic broker configs: for every broker (empty resource name), and for this node. */
    final TreeMap<String, String> clusterDefault = new TreeMap<>();
    final TreeMap<String, String> node = new TreeMap<>();
    /** {@code node.id} (or {@code broker.id}) of the data directory's {@code meta.properties}; null without one. */
    final Integer nodeId;

    // the replay: topic id -> name, (resource type, resource name) -> config name -> value
    private final Map<List<Long>, String> topicNames = new HashMap<>();
    private final Map<List<Object>, TreeMap<String, String>> configs = new HashMap<>();
    private List<KraftMetadataRecord> transaction;

    private KraftTopicConfigs(Path dir, Integer nodeId) {
        this.dir = dir;
        this.nodeId = nodeId;
    }

    /** The topics the metadata lists. */
    Set<String> topics() {
        return new TreeSet<>(topicNames.values());
    }

    /** The metadata of the data directory {@code root}, or null when it holds no {@code __cluster_metadata-N}. */
    static KraftTopicConfigs read(FileSystem fs, Path root) throws IOException {
        Path dir = metadataDir(fs, root);
        if (dir == null) {
            return null;
        }
        TopicPartition tp = new TopicPartition(TOPIC, Integer.parseInt(dir.getName().substring(TOPIC.length() + 1)));
        KraftTopicConfigs state = new KraftTopicConfigs(dir, nodeId(fs, root));
        long covered = 0;
        Path snapshot = newestSnapshot(fs, dir);
        try (BatchDecoder decoder = new BatchDecoder(BatchDecoder.DEFAULT_BUDGET)) {
            if (snapshot != null) {
                covered = Long.parseLong(snapshot.getName().substring(0, 20));
                try (SegmentStream s = new SegmentStream(fs, snapshot, 0, 1 << 20)) {
                    while (s.next()) { // a snapshot is written whole: a cut batch is damage
                        state.replayBatch(decoder, s, Long.MIN_VALUE);
                    }
                }
            }
            CommittedOffsets committed = CommittedOffsets.latest(fs, root);
            LocalLog log = InternalTopicLog.open(fs, dir, tp, root, committed.partitions.get(tp));
            if (log.logStartOffset > covered) {
                throw state.unresolvable("the metadata log starts at offset " + log.logStartOffset
                    + " and no snapshot covers the records before it", null);
            }
            state.replayLog(fs, decoder, log, covered);
        } catch (CorruptLogException e) {
            throw state.unresolvable(e.getMessage(), e);
        }
        state.transaction = null; // a transaction the log does not end is not applied
        state.collect();
        return state;
    }

    /** The lowest-numbered {@code __cluster_metadata-N} directory in {@code root}, as the Python side picks it. */
    private static Path metadataDir(FileSystem fs, Path root) throws IOException {
        Path best = null;
        long bestN = Long.MAX_VALUE;
        FileStatus[] listing;
        try {
            listing = fs.listStatus(root);
        } catch (FileNotFoundException e) {
            return null;
        }
        for (FileStatus st : listing) {
            Matcher m = PARTITION_DIR.matcher(st.getPath().getName());
            long n = m.matches() ? Long.parseLong(m.group(1)) : Long.MAX_VALUE;
            if (st.isDirectory() && n <= Integer.MAX_VALUE && n < bestN) { // a partition number: 2^31-1 at most
                bestN = n;
                best = st.getPath();
            }
        }
        return best;
    }

    private static Path newestSnapshot(FileSystem fs, Path dir) throws IOException {
        String newest = null;
        for (FileStatus st : fs.listStatus(dir)) {
            String n = st.getPath().getName();
            if (SNAPSHOT.matcher(n).matches() && (newest == null || n.compareTo(newest) > 0)) {
                newest = n;
            }
        }
        return newest == null ? null : new Path(dir, newest);
    }

    /** {@code node.id}, else {@code broker.id}, of {@code root/meta.properties} ("key=value" lines). */
    private static Integer nodeId(FileSystem fs, Path root) throws IOException {
        String text;
        try (InputStream in = fs.open(new Path(root, "meta.properties"))) {
            text = new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8);
        } catch (FileNotFoundException e) {
            return null;
        }
        Map<String, String> props = new HashMap<>();
        for (String line : text.split("\\R")) {
            int eq = line.indexOf('=');
            String lead = line.stripLeading();
            if (eq >= 0 && !lead.startsWith("#") && !lead.startsWith("!")) {
                props.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
            }
        }
        for (String key : new String[] {"node.id", "broker.id"}) {
            String v = props.getOrDefault(key, "");
            if (v.matches("-?[0-9]{1,9}")) {
                return Integer.valueOf(v);
            }
        }
        return null;
    }

    /** The log's batches from {@code from} (the snapshot's end offset) to its end; control batches are skipped. */
    private void replayLog(FileSystem fs, BatchDecoder decoder, LocalLog log, long from) throws IOException {
        long next = InternalTopicLog.walk(fs, log, from, s -> replayBatch(decoder, s, from));
        if (next < log.logEndOffset) {
            SegmentList segs = log.segments;
            throw unresolvable("the batches of " + segs.path(segs.bases.length - 1).getName() + " end at offset "
                + next + ", before the offset " + log.logEndOffset + " the data directory's checkpoints vouch for",
                null);
        }
    }

    private IllegalStateException unresolvable(String problem, Throwable cause) {
        return new IllegalStateException("topic configs cannot be resolved from the KRaft metadata log " + dir + ": "
            + problem, cause);
    }

    /** Applies the records of the batch {@code s} stands on from offset {@code from} (its CRC is checked). */
    private void replayBatch(BatchDecoder decoder, SegmentStream s, long from) throws IOException {
        InternalTopicLog.ValueSink values = new InternalTopicLog.ValueSink();
        decoder.decode(s, from, Long.MAX_VALUE, values);
        for (int i = 0; i < values.values.size(); i++) {
            byte[] v = values.values.get(i);
            if (v == null) {
                throw new CorruptLogException(s.file(), s.position(), "the metadata record at offset "
                    + values.offsets.get(i) + " has no value");
            }
            try {
                apply(KraftMetadataRecord.decode(v));
            } catch (BatchFormatException e) {
                throw new CorruptLogException(s.file(), s.position(), "the metadata record at offset "
                    + values.offsets.get(i) + ": " + e.getMessage(), e);
            }
        }
    }

    private void apply(KraftMetadataRecord r) {
        switch (r.apiKey) {
            case KraftMetadataRecord.BEGIN_TRANSACTION -> transaction = new ArrayList<>();
            case KraftMetadataRecord.END_TRANSACTION -> {
                List<KraftMetadataRecord> pending = transaction;
                transaction = null;
                if (pending != null) {
                    pending.forEach(this::change);
                }
            }
            case KraftMetadataRecord.ABORT_TRANSACTION -> transaction = null;
            default -> {
                if (transaction != null) {
                    transaction.add(r);
                } else {
                    change(r);
                }
            }
        }
    }

    private void change(KraftMetadataRecord r) {
        switch (r.apiKey) {
            case KraftMetadataRecord.TOPIC -> topicNames.put(List.of(r.idHigh, r.idLow), r.name);
            case KraftMetadataRecord.REMOVE_TOPIC -> {
                String name = topicNames.remove(List.of(r.idHigh, r.idLow));
                if (name != null) {
                    configs.remove(List.of(TOPIC_RESOURCE, name));
                }
            }
            case KraftMetadataRecord.CONFIG -> {
                List<Object> resource = List.of(r.resourceType, r.name);
                if (r.configValue != null) {
                    configs.computeIfAbsent(resource, k -> new TreeMap<>()).put(r.configName, r.configValue);
                } else if (configs.containsKey(resource)) {
                    configs.get(resource).remove(r.configName);
                }
            }
            default -> {
                // not a config or topic record
            }
        }
    }

    /** Sorts the replayed configs into topic, cluster-default and this node's. */
    private void collect() {
        for (Map.Entry<List<Object>, TreeMap<String, String>> e : configs.entrySet()) {
            int type = (Integer) e.getKey().get(0);
            String name = (String) e.getKey().get(1);
            if (e.getValue().isEmpty()) {
                continue;
            }
            if (type == TOPIC_RESOURCE) {
                topicConfigs.put(name, e.getValue());
            } else if (type == BROKER_RESOURCE && name.isEmpty()) {
                clusterDefault.putAll(e.getValue());
            } else if (type == BROKER_RESOURCE && nodeId != null && name.equals(String.valueOf(nodeId))) {
                node.putAll(e.getValue());
            }
        }
    }
}
