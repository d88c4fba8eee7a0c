package io.kvlog.spark.log;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A partition found in several brokers' data directories (a cluster's replicas): the replica to read and where a
 * read of it stops, chosen as the Python {@code kvlog.cluster.Cluster} chooses them, with the same refusals and
 * messages. The newest leader's history (the highest last leader epoch), its longest copy; read up to what the
 * cluster committed: the highest checkpointed high watermark, or past it the end two agreeing replicas hold, never
 * past the chosen replica's end. A replica holding records past where the chosen replica's history ends its last
 * epoch has diverged: an error naming the replicas, unless {@code newest} reads the newest leader's history.
 */
public final class ClusterReplicas {
    private ClusterReplicas() {
    }

    /** The replica read and the offset a read stops at. */
    public record Choice(Path path, long end) {
    }

    /** One log directory's {@code meta.properties} (broker and cluster ids) and checkpointed high watermarks. */
    record Directory(Path root, Integer broker, String clusterId, Map<TopicPartition, Long> highWatermarks) {
        String name() {
            String shown = "file".equals(root.toUri().getScheme()) ? root.toUri().getPath() : root.toString();
            return broker != null ? "broker " + broker + " (" + shown + ")" : shown;
        }
    }

    private record Replica(Directory dir, Path path, long logStart, long logEnd, List<long[]> epochs) {
        long latestEpoch() {
            return epochs == null || epochs.isEmpty() ? -1 : epochs.get(epochs.size() - 1)[0];
        }
    }

    static Directory directory(FileSystem fs, Path root) throws IOException {
        Map<String, String> props = new HashMap<>();
        try (InputStream in = fs.open(new Path(root, "meta.properties"))) {
            for (String line : new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8).split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0 && !line.stripLeading().startsWith("#") && !line.stripLeading().startsWith("!")) {
                    props.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
                }
            }
        } catch (FileNotFoundException e) {
            // a directory kvlog wrote: no broker
        }
        Integer broker = null;
        for (String k : new String[] {"node.id", "broker.id"}) {
            String v = props.get(k);
            if (broker == null && v != null && v.matches("-?\\d+")) {
                broker = Integer.parseInt(v);
            }
        }
        Map<TopicPartition, Long> hws;
        try {
            hws = LogStartCheckpoint.read(fs, root, "replication-offset-checkpoint");
        } catch (IllegalStateException e) {
            hws = Map.of();
        }
        return new Directory(root, broker, props.get("cluster.id"), hws);
    }

    /** Refuses directories of different clusters (their {@code cluster.id}). */
    static void sameCluster(List<Directory> dirs) {
        Set<String> ids = new HashSet<>();
        for (Directory d : dirs) {
            if (d.clusterId() != null) {
                ids.add(d.clusterId());
            }
        }
        if (ids.size() > 1) {
            StringBuilder named = new StringBuilder();
            for (Directory d : dirs) {
                if (d.clusterId() != null) {
                    named.append(named.length() > 0 ? "; " : "").append(d.root()).append(": ").append(d.clusterId());
                }
            }
            throw new IllegalArgumentException("these directories belong to different clusters (cluster.id in "
                + "meta.properties: " + named + "): read each cluster apart");
        }
    }

    /** The replica of {@code tp} to read, among {@code places} (partition directory, its log directory). */
    static Choice choose(FileSystem fs, TopicPartition tp, List<Path> places, Map<Path, Directory> dirs,
                         boolean newest) throws IOException {
        List<Replica> replicas = new ArrayList<>();
        Set<Integer> brokers = new HashSet<>();
        for (Path p : places) {
            Directory d = dirs.get(p.getParent());
            if (d.broker() != null && !brokers.add(d.broker())) {
                throw new IllegalArgumentException("partition " + tp + " is in two log directories of one broker ("
                    + places + "): a broker keeps one copy of a partition");
            }
            Map<TopicPartition, Long> starts = LogStartCheckpoint.read(fs, p.getParent());
            Map<TopicPartition, Long> durable = LogStartCheckpoint.durableEnds(fs, p.getParent());
            LocalLog log = LocalLog.open(fs, p, starts.getOrDefault(tp, 0L), durable.getOrDefault(tp, -1L), false, true,
                1 << 20, false, true, null);
            replicas.add(new Replica(d, p, log.logStartOffset, log.logEndOffset, BrokerFiles.readLeaderEpochs(fs, p)));
        }
        Map<String, String> ids = new java.util.LinkedHashMap<>();
        for (Replica r : replicas) {
            String id = BrokerFiles.readTopicId(fs, r.path());
            if (id != null) {
                ids.put(r.dir().name(), id);
            }
        }
        if (new HashSet<>(ids.values()).size() > 1) {
            StringBuilder named = new StringBuilder();
            ids.forEach((name, id) -> named.append(named.length() > 0 ? "; " : "").append(name).append(": ").append(id));
            throw new IllegalArgumentException("the replicas of " + tp + " belong to different topics (topic ids in "
                + "partition.metadata: " + named + "): a topic deleted and created again under its name while a "
                + "broker was away leaves that broker the old topic's copy. Leave the stale broker's directory out, "
                + "or read each alone");
        }
        Comparator<Replica> rank = Comparator.comparingLong(Replica::latestEpoch)
            .thenComparingLong(Replica::logEnd)
            .thenComparingLong(r -> r.dir().highWatermarks().getOrDefault(tp, -1L));
        List<Replica> ranked = new ArrayList<>(replicas);
        ranked.sort(rank.reversed());
        Replica chosen = ranked.get(0);
        List<Replica> agreeing = new ArrayList<>();
        agreeing.add(chosen);
        StringBuilder parts = new StringBuilder();
        for (Replica r : ranked.subList(1, ranked.size())) {
            Long at = partsAt(chosen, r);
            if (at == null) {
                agreeing.add(r);
                continue;
            }
            parts.append(parts.length() > 0 ? "; " : "").append(r.dir().name()).append(" holds offsets ").append(at)
                .append("..").append(r.logEnd()).append(" (leader epoch ").append(r.latestEpoch()).append(") that ")
                .append(chosen.dir().name()).append(" (leader epoch ").append(chosen.latestEpoch()).append(") does not");
        }
        if (parts.length() > 0 && !newest) {
            throw new IllegalArgumentException("the replicas of " + tp + " have diverged: " + parts + ". Read each "
                + "replica alone (its data directory by itself), or the newest leader's history with the option "
                + "kvlog.divergentReplicas=newest");
        }
        long end = chosen.logEnd();
        if (agreeing.size() > 1) {
            List<Long> ends = new ArrayList<>();
            long committed = -1;
            for (Replica r : agreeing) {
                ends.add(r.logEnd());
                committed = Math.max(committed, r.dir().highWatermarks().getOrDefault(tp, -1L));
            }
            ends.sort(Comparator.reverseOrder());
            committed = Math.max(committed, ends.get(1));
            end = Math.min(chosen.logEnd(), Math.max(committed, chosen.logStart()));
        }
        return new Choice(chosen.path(), end);
    }

    /** Where {@code other}'s history parts from {@code chosen}'s, or null (Kafka's OffsetsForLeaderEpoch rule). */
    private static Long partsAt(Replica chosen, Replica other) {
        if (other.epochs() == null || chosen.epochs() == null || other.epochs().isEmpty()) {
            return null;
        }
        long epoch = other.latestEpoch();
        long end = chosen.logEnd();
        for (long[] e : chosen.epochs()) {
            if (e[0] > epoch) {
                end = e[1];
                break;
            }
        }
        if (other.logEnd() > end && other.logEnd() > other.logStart()) {
            return Math.max(end, other.logStart());
        }
        return null;
    }
}
