package io.kvlog.spark.write;

import io.kvlog.spark.fs.ExclusiveCreate;
import io.kvlog.spark.fs.HadoopConf;
import io.kvlog.spark.fs.LogFileSystems;
import io.kvlog.spark.log.BrokerFiles;
import io.kvlog.spark.log.CommittedOffsets;
import io.kvlog.spark.log.TopicPartition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * The driver's side of a JVM sink write, metadata only: check what the tasks report against the files (one
 * listing per written partition), then publish the next {@link CommittedOffsets} version — the single write that
 * makes the whole job visible at once — and release the lease. Work grows with partitions, never with bytes.
 *
 * <p>If another commit published meanwhile, the job goes on only when none of its partitions moved (their
 * committed ranges equal what planning saw); otherwise it fails and removes its files: nothing interleaves.
 * A streaming epoch already applied (the sink's last epoch at or past it) is dropped the same way. Each partition
 * the commit sets has its topic's {@code partition.metadata} before the commit and a consistent
 * {@code leader-epoch-checkpoint} after it ({@link BrokerFiles}).
 */
public final class SinkCommit {
    /** How long the last commit in this JVM took, in nanoseconds (a diagnostic the benchmarks read). */
    static volatile long lastCommitNanos = -1;
    /** Per task of the last commit, the partitions it wrote (for tests of the distribution: one each). */
    static volatile String lastTaskPartitions = "";
    /** What the last commit's tasks were handed: "batches" (the batch exchange), "rows", or "" (no task wrote). */
    static volatile String lastExchange = "";

    private SinkCommit() {
    }

    /** {@link #lastCommitNanos}, for {@code KvlogSource}. */
    public static long lastCommitNanos() {
        return lastCommitNanos;
    }

    /** {@link #lastTaskPartitions}, for {@code KvlogSource}. */
    public static String lastTaskPartitions() {
        return lastTaskPartitions;
    }

    /** {@link #lastExchange}, for {@code KvlogSource}. */
    public static String lastExchange() {
        return lastExchange;
    }

    /** Outcome of a commit: the version published (-1: an epoch already applied, nothing published). */
    static long commit(SinkPlan plan, WriterCommitMessage[] messages, long epoch) throws IOException {
        long began = System.nanoTime();
        try {
            return commitTimed(plan, messages, epoch);
        } finally {
            lastCommitNanos = System.nanoTime() - began;
        }
    }

    private static long commitTimed(SinkPlan plan, WriterCommitMessage[] messages, long epoch) throws IOException {
        FileSystem fs = ExclusiveCreate.raw(LogFileSystems.of(plan.rootPath(), HadoopConf.with(plan.conf)));
        Map<TopicPartition, SinkCommitMessage.Written> written = written(messages);
        try {
            Map<TopicPartition, Set<String>> listed = verifyFiles(fs, plan, written);
            writeTopicIds(fs, plan, touched(plan, written), listed);
            for (int attempt = 0; ; attempt++) {
                CommittedOffsets latest = CommittedOffsets.latest(fs, plan.rootPath());
                if (plan.sinkId != null && latest.sinks.getOrDefault(plan.sinkId, -1L) >= epoch) {
                    removeWritten(fs, plan, written);
                    return -1;
                }
                TreeMap<TopicPartition, CommittedOffsets.Range> next = new TreeMap<>(latest.partitions);
                Set<TopicPartition> touched = touched(plan, written);
                List<Runnable> epochUpdates = new ArrayList<>();
                for (TopicPartition tp : touched) {
                    CommittedOffsets.Range was = plan.ranges.get(tp);
                    CommittedOffsets.Range now = latest.partitions.get(tp);
                    if (latest.version != plan.version && !java.util.Objects.equals(was, now)) {
                        throw new IllegalStateException("partition " + tp + " of " + plan.root + " was written by "
                            + "another job (committed " + now + ", this job planned from " + was + "); this job's "
                            + "records were not committed");
                    }
                    long start = was == null ? 0 : was.start();
                    long end = was == null ? 0 : was.end();
                    if (plan.overwrite && plan.topicOverwritten(tp.topic(), written.keySet())) {
                        start = end; // overwrite empties the topic: its log start moves to the old end
                    }
                    SinkCommitMessage.Written w = written.get(tp);
                    next.put(tp, new CommittedOffsets.Range(start, w == null ? end : w.end()));
                    if (was == null) {
                        ExclusiveCreate.mkdirs(fs, plan.dir(tp)); // a new topic's partitions, rows or not
                    }
                    if (was == null || start != was.start()) { // a plain append changes no entry
                        epochUpdates.add(leaderEpochUpdate(fs, plan.dir(tp), was == null, end, start));
                    }
                }
                TreeMap<String, Long> sinks = new TreeMap<>(latest.sinks);
                if (plan.sinkId != null) {
                    sinks.put(plan.sinkId, epoch);
                }
                long version = latest.maxListed + 1;
                if (CommittedOffsets.publish(fs, plan.rootPath(), version,
                        CommittedOffsets.format(version, plan.job, next, sinks))) {
                    CommittedOffsets.prune(fs, plan.rootPath(), version);
                    epochUpdates.forEach(Runnable::run);
                    return version;
                }
                if (attempt >= 20) {
                    throw new IllegalStateException("could not publish the commit of " + plan.job + " to "
                        + plan.root + ": other commits kept winning");
                }
            }
        } catch (IOException | RuntimeException e) {
            removeWritten(fs, plan, written);
            throw e;
        } finally {
            SinkPlan.releaseLease(fs, plan.lease());
        }
    }

    /** The job failed: its tasks' files go (they were never visible), then the lease. */
    static void abort(SinkPlan plan, WriterCommitMessage[] messages) {
        try {
            FileSystem fs = ExclusiveCreate.raw(LogFileSystems.of(plan.rootPath(), HadoopConf.with(plan.conf)));
            try {
                removeWritten(fs, plan, written(messages));
            } finally {
                SinkPlan.releaseLease(fs, plan.lease());
            }
        } catch (IOException | RuntimeException e) {
            // leftovers are removed by the next write's planning
        }
    }

    private static Map<TopicPartition, SinkCommitMessage.Written> written(WriterCommitMessage[] messages) {
        Map<TopicPartition, SinkCommitMessage.Written> out = new HashMap<>();
        StringBuilder layout = new StringBuilder();
        String exchange = "";
        for (WriterCommitMessage m : messages) {
            if (m instanceof SinkCommitMessage sm) {
                if (!sm.written().isEmpty()) {
                    exchange = sm.fromBatches() ? "batches" : exchange.isEmpty() ? "rows" : exchange;
                }
                layout.append(sm.written().stream().map(w -> w.tp().toString()).sorted()
                    .collect(java.util.stream.Collectors.joining(","))).append(';');
                for (SinkCommitMessage.Written w : sm.written()) {
                    if (out.put(w.tp(), w) != null) {
                        throw new IllegalStateException("two tasks wrote partition " + w.tp() + "; refusing to "
                            + "commit either (Spark did not cluster the rows by partition)");
                    }
                }
            }
        }
        lastTaskPartitions = layout.toString();
        lastExchange = exchange;
        return out;
    }

    /** Every partition whose committed range this job sets: those written, and for overwrite whole topics. */
    private static Set<TopicPartition> touched(SinkPlan plan, Map<TopicPartition, SinkCommitMessage.Written> written) {
        Set<TopicPartition> out = new TreeSet<>(written.keySet());
        Set<String> topics = new TreeSet<>();
        written.keySet().forEach(tp -> topics.add(tp.topic()));
        if (plan.topicOption != null) {
            topics.add(plan.topicOption);
        }
        for (String t : topics) {
            int n = plan.partitionsOf(t);
            boolean isNew = !plan.partitionCounts.containsKey(t);
            for (int p = 0; p < n; p++) {
                TopicPartition tp = new TopicPartition(t, p);
                if (isNew || plan.overwrite) {
                    out.add(tp);
                }
            }
        }
        return out;
    }

    /**
     * Before the commit, every partition it sets gets its topic's partition.metadata where it has none ({@link
     * BrokerFiles}): the id kvlog-topics.json or a partition of the topic gives it, else a new one for the topic.
     * {@code listed} holds the file names of the written partitions (their listing is taken already).
     */
    private static void writeTopicIds(FileSystem fs, SinkPlan plan, Set<TopicPartition> touched,
                                      Map<TopicPartition, Set<String>> listed) throws IOException {
        Map<String, String> ids = new HashMap<>();
        for (TopicPartition tp : touched) {
            Set<String> names = listed.get(tp);
            Path dir = plan.dir(tp);
            boolean has = names != null ? names.contains(BrokerFiles.PARTITION_METADATA)
                : fs.exists(new Path(dir, BrokerFiles.PARTITION_METADATA));
            if (has) {
                continue;
            }
            String id = ids.get(tp.topic());
            if (id == null) {
                List<Integer> parts = new ArrayList<>();
                plan.ranges.keySet().stream().filter(t -> t.topic().equals(tp.topic()))
                    .forEach(t -> parts.add(t.partition()));
                id = BrokerFiles.topicIdOf(fs, plan.rootPath(), tp.topic(), parts);
                ids.put(tp.topic(), id != null ? id : BrokerFiles.newTopicId());
                id = ids.get(tp.topic());
            }
            BrokerFiles.writeTopicId(fs, dir, id);
        }
    }

    /**
     * After the commit, a partition's leader-epoch-checkpoint as a local log keeps it: an empty one for a new
     * partition (the sink's batches carry no leader epoch), the first entry moved to the new log start after an
     * overwrite. Best effort: the commit is published, and a failure here must not fail the job (a writer's open,
     * or the next overwrite, puts the file right).
     */
    private static Runnable leaderEpochUpdate(FileSystem fs, Path dir, boolean isNew, long oldEnd, long start) {
        return () -> {
            try {
                if (isNew) {
                    BrokerFiles.writeLeaderEpochs(fs, dir, List.of());
                    return;
                }
                List<long[]> was = BrokerFiles.readLeaderEpochs(fs, dir);
                if (was == null) {
                    return; // none (kvlog before it kept one), or damaged: a writer's open rebuilds it
                }
                List<long[]> now = BrokerFiles.truncateFromStart(BrokerFiles.truncateFromEnd(was, oldEnd), start);
                if (!BrokerFiles.same(was, now)) {
                    BrokerFiles.writeLeaderEpochs(fs, dir, now);
                }
            } catch (IOException | RuntimeException e) {
                // see above
            }
        };
    }

    /** Each written segment's .log is there with the size its task reported; returns each partition's names. */
    private static Map<TopicPartition, Set<String>> verifyFiles(FileSystem fs, SinkPlan plan,
            Map<TopicPartition, SinkCommitMessage.Written> written) throws IOException {
        Map<TopicPartition, Set<String>> listed = new HashMap<>();
        for (SinkCommitMessage.Written w : written.values()) {
            Map<String, Long> sizes = new HashMap<>();
            for (FileStatus st : fs.listStatus(plan.dir(w.tp()))) {
                sizes.put(st.getPath().getName(), st.getLen());
            }
            listed.put(w.tp(), sizes.keySet());
            for (int i = 0; i < w.bases().length; i++) {
                String name = SegmentWriter.fileName(w.bases()[i], ".log");
                Long have = sizes.get(name);
                if (have == null || have != w.sizes()[i]) {
                    throw new IllegalStateException("segment " + new Path(plan.dir(w.tp()), name) + " should hold "
                        + w.sizes()[i] + " bytes but " + (have == null ? "is missing" : "holds " + have)
                        + ": something removed or rewrote this job's files; nothing of it was committed");
                }
            }
        }
        return listed;
    }

    private static void removeWritten(FileSystem fs, SinkPlan plan, Map<TopicPartition, SinkCommitMessage.Written> written) {
        for (SinkCommitMessage.Written w : written.values()) {
            try {
                SinkPlan.removeUncommitted(fs, plan.dir(w.tp()), w.start());
            } catch (IOException e) {
                // the next write's planning removes what is left
            }
        }
    }
}
