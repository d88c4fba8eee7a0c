package io.kvlog.spark.metadata;

import io.kvlog.spark.format.BatchFormatException;
import io.kvlog.spark.fs.LogFileSystems;
import io.kvlog.spark.log.BatchDecoder;
import io.kvlog.spark.log.LocalLog;
import io.kvlog.spark.log.TopicPartition;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The remote segments of a tiered-storage (KIP-405) cluster, replayed from its {@code __remote_log_metadata-N}
 * partitions the way a broker's {@code TopicBasedRemoteLogMetadataManager} fills its cache, with exactly the rules
 * of {@code kvlog.internal_topics.remote_log_metadata} (its docstring states them): segment state transitions,
 * per-epoch offset slots ({@code RemoteLogLeaderEpochState}) that a re-uploaded segment takes from the segments it
 * supersedes, partition deletes. A segment is part of the log while COPY_SEGMENT_FINISHED and holding the slot of
 * one of its epochs. Records the broker's consumer refuses stop the replay with an {@link IllegalStateException}
 * naming partition and offset (or, not {@code strict}, are listed in {@link #problems} and skipped); dropped
 * transitions and unknown record types or versions are listed and skipped.
 */
public final class RemoteLogMetadataReplay {
    static final String TOPIC = "__remote_log_metadata";
    private static final Pattern PARTITION_DIR = Pattern.compile("__remote_log_metadata-(0|[1-9][0-9]{0,9})");
    private static final int STARTED = 0;
    private static final int FINISHED = 1;
    private static final int DELETE_STARTED = 2;
    private static final int DELETE_FINISHED = 3;
    private static final int DELETE_PARTITION_FINISHED = 2;

    /** Kafka's TopicIdPartition. */
    public record Tp(String topicId, String topic, int partition) {
        @Override
        public String toString() {
            return topicId + ":" + topic + "-" + partition;
        }
    }

    /** One segment as the cache holds it, with its verdict once {@link #rows()} gave it. */
    public static final class Segment {
        public final Tp tp;
        public final String id;
        public final long start;
        public final long end;
        final long maxTimestamp;
        public final int size;
        /** Leader epoch -> its first offset in the segment. */
        public final TreeMap<Integer, Long> epochs;
        public final boolean txnIndexEmpty;
        /** The remote storage manager's custom metadata of the latest accepted record (null: none). */
        public byte[] custom;
        public int state;
        public int metadataPartition;
        public long metadataOffset;
        String supersededBy;
        public boolean inLog;
        public String reason;

        Segment(Tp tp, RemoteLogMetadataRecord r, int metadataPartition, long metadataOffset) {
            this.tp = tp;
            this.id = r.segmentId;
            this.start = r.startOffset;
            this.end = r.endOffset;
            this.maxTimestamp = r.maxTimestampMs;
            this.size = r.segmentSize;
            this.epochs = new TreeMap<>(r.leaderEpochs);
            this.txnIndexEmpty = r.txnIndexEmpty;
            this.custom = r.customMetadata;
            this.state = r.state;
            this.metadataPartition = metadataPartition;
            this.metadataOffset = metadataOffset;
        }

        /** A segment given directly (tests of the lineage). */
        public Segment(Tp tp, String id, long start, long end, TreeMap<Integer, Long> epochs) {
            this.tp = tp;
            this.id = id;
            this.start = start;
            this.end = end;
            this.maxTimestamp = -1;
            this.size = -1;
            this.epochs = epochs;
            this.txnIndexEmpty = false;
            this.state = FINISHED;
        }

        /** The last offset of {@code epoch} in this segment: the next epoch's start - 1, or the segment's end. */
        long epochEnd(int epoch) {
            long min = Long.MAX_VALUE;
            for (long o : epochs.tailMap(epoch, false).values()) {
                min = Math.min(min, o);
            }
            return min == Long.MAX_VALUE ? end : min - 1;
        }

        /** Where this segment's part for {@code epoch} ends, exclusive: the next epoch's start, or end + 1. */
        long epochStop(int epoch) {
            Map.Entry<Integer, Long> later = epochs.higherEntry(epoch);
            return later == null ? end + 1 : later.getValue();
        }
    }

    /** {@code RemoteLogLeaderEpochState}: the finished segments of one leader epoch, by start offset. */
    private static final class EpochState {
        final TreeMap<Long, String> byStart = new TreeMap<>();
        Long highest;

        List<String> copyFinished(long start, String sid, long epochEnd) {
            List<String> pushed = new ArrayList<>();
            while (!byStart.isEmpty() && byStart.lastKey() >= start && highest != null && highest <= epochEnd) {
                pushed.add(byStart.pollLastEntry().getValue());
            }
            String before = byStart.put(start, sid);
            if (before != null && !before.equals(sid)) {
                pushed.add(before); // overwritten in place, as a map put does
            }
            if (highest == null || epochEnd > highest) {
                highest = epochEnd;
            }
            return pushed;
        }

        void deleteStarted(long start, String sid) {
            if (sid.equals(byStart.get(start))) {
                byStart.remove(start);
            }
        }

        boolean holds(long start, String sid) {
            return sid.equals(byStart.get(start));
        }
    }

    /** {@code RemoteLogMetadataCache} of one user partition; {@code gone} keeps what the broker forgets. */
    private static final class PartitionCache {
        final LinkedHashMap<String, Segment> segments = new LinkedHashMap<>();
        final TreeMap<Integer, EpochState> epochs = new TreeMap<>();
        final LinkedHashMap<String, Segment> gone = new LinkedHashMap<>();

        EpochState epoch(int e) {
            return epochs.computeIfAbsent(e, k -> new EpochState());
        }
    }

    private final LinkedHashMap<Tp, PartitionCache> partitions = new LinkedHashMap<>();
    private final Map<Tp, Integer> deleted = new LinkedHashMap<>();
    private final LinkedHashMap<Tp, PartitionCache> dropped = new LinkedHashMap<>();
    public final List<String> problems = new ArrayList<>();
    private final boolean strict;
    long records;

    RemoteLogMetadataReplay(boolean strict) {
        this.strict = strict;
    }

    static boolean valid(Integer source, int target) {
        if (source == null) {
            return target == STARTED;
        }
        return source == target || (source == STARTED && (target == FINISHED || target == DELETE_STARTED))
            || (source == FINISHED && target == DELETE_STARTED) || (source == DELETE_STARTED && target == DELETE_FINISHED);
    }

    /** The {@code __remote_log_metadata-N} directories in {@code root} (or {@code root} itself), by partition. */
    static List<Path> partitionDirs(FileSystem fs, Path root) throws IOException {
        TreeMap<Long, Path> found = new TreeMap<>();
        Matcher self = PARTITION_DIR.matcher(root.getName());
        if (self.matches()) {
            found.put(Long.parseLong(self.group(1)), root);
            return new ArrayList<>(found.values());
        }
        FileStatus[] listing;
        try {
            listing = fs.listStatus(root);
        } catch (FileNotFoundException e) {
            throw new IllegalArgumentException("no such directory: " + LogFileSystems.shown(root.toString()));
        }
        for (FileStatus st : listing) {
            Matcher m = PARTITION_DIR.matcher(st.getPath().getName());
            if (st.isDirectory() && m.matches() && Long.parseLong(m.group(1)) <= Integer.MAX_VALUE) {
                found.put(Long.parseLong(m.group(1)), st.getPath());
            }
        }
        return new ArrayList<>(found.values());
    }

    /** Replays every {@code __remote_log_metadata-N} partition in {@code root}; none there is an error. */
    public static RemoteLogMetadataReplay read(FileSystem fs, Path root, boolean strict) throws IOException {
        List<Path> dirs = partitionDirs(fs, root);
        if (dirs.isEmpty()) {
            throw new IllegalArgumentException("no " + TOPIC + "-N directory in " + LogFileSystems.shown(root.toString())
                + " (kvlog.remoteStorage.metadataPath names the directory that holds them)");
        }
        RemoteLogMetadataReplay state = new RemoteLogMetadataReplay(strict);
        for (Path dir : dirs) {
            int n = Integer.parseInt(dir.getName().substring(TOPIC.length() + 1));
            TopicPartition tp = new TopicPartition(TOPIC, n);
            LocalLog log = InternalTopicLog.open(fs, dir, tp, dir.getParent(), null);
            state.readLog(fs, log, n, TOPIC + "-" + n);
        }
        return state;
    }

    private void readLog(FileSystem fs, LocalLog log, int n, String label) throws IOException {
        long from = log.logStartOffset;
        try (BatchDecoder decoder = new BatchDecoder(BatchDecoder.DEFAULT_BUDGET)) {
            InternalTopicLog.walk(fs, log, from, s -> {
                InternalTopicLog.ValueSink values = new InternalTopicLog.ValueSink();
                decoder.decode(s, from, log.logEndOffset, values); // control batches give no record
                for (int k = 0; k < values.values.size(); k++) {
                    feed(values.values.get(k), n, values.offsets.get(k), label);
                }
            });
        }
    }

    /** One record value at {@code offset} of metadata partition {@code n}. */
    void feed(byte[] value, int n, long offset, String label) {
        RemoteLogMetadataRecord r;
        try {
            r = RemoteLogMetadataRecord.decode(value);
        } catch (BatchFormatException e) {
            refuse(label, offset, e.getMessage());
            return;
        }
        if (r.unknown != null) {
            problems.add(label + " offset " + offset + ": " + r.unknown);
            return;
        }
        apply(r, n, offset, label);
    }

    private void refuse(String label, long offset, String problem) {
        String text = "partition " + label + ", offset " + offset + ": " + problem;
        if (strict) {
            throw new IllegalStateException("a " + TOPIC + " record the broker's consumer stops on: " + text);
        }
        problems.add(text);
    }

    void apply(RemoteLogMetadataRecord r, int n, long offset, String label) {
        records++;
        String refused = r.refusal();
        if (refused != null) {
            refuse(label, offset, "Kafka refuses this " + r.typeName() + ": " + refused);
            return;
        }
        if (r.apiKey == RemoteLogMetadataRecord.SNAPSHOT) {
            refuse(label, offset, "a RemoteLogSegmentMetadataSnapshotRecord in the topic (brokers only write them "
                + "to snapshot files; the broker's consumer refuses it)");
            return;
        }
        Tp tp = new Tp(r.topicId, r.topic, r.partition);
        if (r.apiKey == RemoteLogMetadataRecord.PARTITION_DELETE) {
            deleted.put(tp, r.state); // the broker checks no transition here: the last state wins
            if (r.state == DELETE_PARTITION_FINISHED && !dropped.containsKey(tp)) {
                PartitionCache c = partitions.remove(tp);
                dropped.put(tp, c == null ? new PartitionCache() : c);
            }
            return;
        }
        if (dropped.containsKey(tp)) {
            problems.add(label + " offset " + offset + ": dropped " + r.typeName() + " for " + tp
                + ": the partition's remote log was deleted (DELETE_PARTITION_FINISHED)");
            return;
        }
        PartitionCache cache = partitions.computeIfAbsent(tp, k -> new PartitionCache());
        if (r.apiKey == RemoteLogMetadataRecord.SEGMENT) {
            addCopyStarted(cache, tp, r, n, offset, label);
        } else {
            update(cache, r, n, offset, label);
        }
    }

    private void addCopyStarted(PartitionCache cache, Tp tp, RemoteLogMetadataRecord r, int n, long offset,
                                String label) {
        if (r.state != STARTED) {
            refuse(label, offset, "a RemoteLogSegmentMetadataRecord in state "
                + RemoteLogMetadataRecord.segmentState(r.state) + " (the broker adds segments only as "
                + "COPY_SEGMENT_STARTED and its consumer stops here)");
            return;
        }
        Segment existing = cache.segments.get(r.segmentId);
        if (!valid(existing == null ? null : existing.state, r.state)) {
            illegal(existing, r.state, label, offset);
            return;
        }
        cache.gone.remove(r.segmentId);
        cache.segments.put(r.segmentId, new Segment(tp, r, n, offset));
    }

    private void update(PartitionCache cache, RemoteLogMetadataRecord r, int n, long offset, String label) {
        int target = r.state;
        Segment seg = cache.segments.get(r.segmentId);
        if (seg == null) {
            problems.add(label + " offset " + offset + ": dropped the update of segment " + r.segmentId + " to "
                + RemoteLogMetadataRecord.segmentState(target) + ": no metadata for it in the cache");
            return;
        }
        if (!valid(seg.state, target)) {
            illegal(seg, target, label, offset);
            return;
        }
        if (target == STARTED) {
            refuse(label, offset, "an update to COPY_SEGMENT_STARTED (the broker's cache refuses it and its consumer "
                + "stops here)");
            return;
        }
        seg.state = target;
        seg.custom = r.customMetadata;
        seg.metadataPartition = n;
        seg.metadataOffset = offset;
        if (target == FINISHED) {
            for (Map.Entry<Integer, Long> e : seg.epochs.entrySet()) {
                for (String old : cache.epoch(e.getKey()).copyFinished(e.getValue(), seg.id, seg.epochEnd(e.getKey()))) {
                    Segment pushed = cache.segments.get(old);
                    if (pushed != null && !old.equals(seg.id)) {
                        pushed.supersededBy = seg.id;
                    }
                }
            }
        } else if (target == DELETE_STARTED) {
            for (Map.Entry<Integer, Long> e : seg.epochs.entrySet()) {
                cache.epoch(e.getKey()).deleteStarted(e.getValue(), seg.id);
            }
        } else { // DELETE_SEGMENT_FINISHED: the broker forgets the segment
            cache.gone.put(seg.id, cache.segments.remove(seg.id));
        }
    }

    private void illegal(Segment seg, int target, String label, long offset) {
        problems.add(label + " offset " + offset + ": dropped the transition of segment " + seg.id + " from "
            + RemoteLogMetadataRecord.segmentState(seg.state) + " to " + RemoteLogMetadataRecord.segmentState(target)
            + " (not allowed)");
    }

    /** Every segment with its verdict ({@code inLog}, {@code reason}), by topic, topic id, partition, start, end, id. */
    public List<Segment> rows() {
        List<Segment> out = new ArrayList<>();
        List<Map.Entry<Tp, PartitionCache>> all = new ArrayList<>(partitions.entrySet());
        all.addAll(dropped.entrySet());
        for (Map.Entry<Tp, PartitionCache> en : all) {
            PartitionCache cache = en.getValue();
            Integer delete = deleted.get(en.getKey());
            List<Segment> segs = new ArrayList<>(cache.segments.values());
            segs.addAll(cache.gone.values());
            for (Segment s : segs) {
                verdict(cache, s, delete);
                out.add(s);
            }
        }
        out.sort(Comparator.comparing((Segment s) -> s.tp.topic())
            .thenComparing(s -> BrokerFilesIds.bytes(s.tp.topicId()), BrokerFilesIds::compare)
            .thenComparingInt(s -> s.tp.partition()).thenComparingLong(s -> s.start).thenComparingLong(s -> s.end)
            .thenComparing(s -> BrokerFilesIds.bytes(s.id), BrokerFilesIds::compare));
        return out;
    }

    private static void verdict(PartitionCache cache, Segment s, Integer delete) {
        s.inLog = false;
        if (delete != null) {
            s.reason = "partition deletion: " + (delete >= 0 && delete < 3
                ? RemoteLogMetadataRecord.PARTITION_DELETE_STATES[delete] : "state " + delete);
            return;
        }
        switch (s.state) {
            case STARTED -> s.reason = "copy not finished";
            case DELETE_STARTED -> s.reason = "delete started";
            case DELETE_FINISHED -> s.reason = "deleted";
            default -> {
                for (Map.Entry<Integer, Long> e : s.epochs.entrySet()) {
                    EpochState st = cache.epochs.get(e.getKey());
                    if (st != null && st.holds(e.getValue(), s.id)) {
                        s.inLog = true;
                        s.reason = null;
                        return;
                    }
                }
                s.reason = "superseded" + (s.supersededBy != null ? " by " + s.supersededBy : "");
            }
        }
    }

    /** The in-log segments of one user partition, by start offset; {@code topicId} null: any incarnation. */
    public List<Segment> inLog(String topic, int partition, String topicId) {
        List<Segment> out = new ArrayList<>();
        for (Segment s : rows()) {
            if (s.inLog && s.tp.topic().equals(topic) && s.tp.partition() == partition
                    && (topicId == null || topicId.equals(s.tp.topicId()))) {
                out.add(s);
            }
        }
        return out;
    }

    /** Kafka Uuid text <-> bytes, for sorting as the Python table sorts (by the id's bytes). */
    static final class BrokerFilesIds {
        private BrokerFilesIds() {
        }

        static byte[] bytes(String id) {
            return java.util.Base64.getUrlDecoder().decode(id);
        }

        static int compare(byte[] a, byte[] b) {
            return java.util.Arrays.compareUnsigned(a, b);
        }
    }
}
