package io.kvlog.spark.read;

import io.kvlog.spark.fs.LogFileSystems;
import io.kvlog.spark.log.CommittedOffsets;
import io.kvlog.spark.log.LogDiscovery;
import io.kvlog.spark.log.LogStartCheckpoint;
import io.kvlog.spark.log.TopicPartition;
import io.kvlog.spark.metadata.RemoteLogMetadataReplay;
import io.kvlog.spark.tiered.AivenLayout;
import io.kvlog.spark.tiered.LocalTieredLayout;
import io.kvlog.spark.tiered.RemoteLayout;
import io.kvlog.spark.tiered.TieredSource;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Resolves a batch read's options to offset ranges, as the Python source's {@code _plan.plan_batch}: Kafka's
 * precedence (*Timestamp, then *OffsetsByTimestamp, then *Offsets), failOnDataLoss, then
 * maxRecordsPerPartition and minPartitions splitting, then the pushed-down filters. A micro-batch stream uses
 * the same pieces per trigger.
 */
final class OffsetRangePlanner {
    private final ReadOptions opts;
    private final Configuration conf;
    private final Map<TopicPartition, PartitionLog> logs = new HashMap<>();

    OffsetRangePlanner(ReadOptions opts, Configuration conf) {
        this.opts = opts;
        this.conf = conf;
    }

    /** Discovers the chosen partitions and opens each (segments, log start, readable end), in partition order. */
    Map<TopicPartition, PartitionLog> openLogs() throws IOException {
        return openLogs(true);
    }

    /**
     * As {@link #openLogs()}; {@code strict} (a batch, or where a stream starts) makes a subscribed topic that does not
     * exist an error, where later triggers of a stream leave a topic that went away to failOnDataLoss.
     */
    Map<TopicPartition, PartitionLog> openLogs(boolean strict) throws IOException {
        LogDiscovery.Found found = LogDiscovery.discover(opts.paths, conf, opts.newestReplicas);
        Map<TopicPartition, Path> chosen = Subscription.select(found, opts, strict);
        Map<Path, Map<TopicPartition, Long>> checkpoints = new HashMap<>();
        Map<Path, Map<TopicPartition, Long>> durable = new HashMap<>();
        Map<Path, Map<TopicPartition, Long>> cleaned = new HashMap<>();
        Map<Path, CommittedOffsets> committed = new HashMap<>();
        Map<TopicPartition, PartitionLog> out = new java.util.TreeMap<>();
        Map<Path, TieredSource> tiered = new HashMap<>();
        for (Map.Entry<TopicPartition, Path> en : chosen.entrySet()) {
            Path dir = en.getValue();
            FileSystem fs = LogFileSystems.of(dir, conf);
            Map<TopicPartition, Long> cp = checkpoints.get(dir.getParent());
            if (cp == null) {
                cp = LogStartCheckpoint.read(fs, dir.getParent());
                checkpoints.put(dir.getParent(), cp);
                durable.put(dir.getParent(), LogStartCheckpoint.durableEnds(fs, dir.getParent()));
                cleaned.put(dir.getParent(), LogStartCheckpoint.cleaned(fs, dir.getParent()));
                committed.put(dir.getParent(), opts.backupRun != null
                    ? CommittedOffsets.atBackupRun(fs, dir.getParent(), opts.backupRun)
                    : CommittedOffsets.latest(fs, dir.getParent()));
            }
            CommittedOffsets governed = committed.get(dir.getParent());
            Map<TopicPartition, Long> cleanedHere = cleaned.get(dir.getParent());
            PartitionLog log = PartitionLog.open(fs, dir, en.getKey(), cp.getOrDefault(en.getKey(), 0L),
                durable.get(dir.getParent()).getOrDefault(en.getKey(), -1L), !opts.failOnDataLoss,
                cleanedHere != null && !cleanedHere.containsKey(en.getKey()), opts.chunkBytes,
                opts.readCommitted,
                !opts.verifyChecksums, governed.rangeFor(en.getKey(), dir), tieredSource(tiered, dir.getParent()));
            Long cap = found.caps.get(en.getKey()); // (a cluster's partition: what the cluster committed)
            out.put(en.getKey(), cap == null ? log : log.cappedAt(cap));
        }
        logs.putAll(out);
        return out;
    }

    /**
     * The remote history of the partitions under data directory {@code root} when kvlog.remoteStorage.layout is
     * set (null otherwise): {@code __remote_log_metadata} replayed once per metadata directory (the data directory,
     * or kvlog.remoteStorage.metadataPath), over the layout at kvlog.remoteStorage.path.
     */
    private TieredSource tieredSource(Map<Path, TieredSource> cache, Path root) throws IOException {
        if (opts.remoteLayout == null) {
            return null;
        }
        Path metadataRoot = opts.remoteMetadataPath != null ? new Path(opts.remoteMetadataPath) : root;
        TieredSource got = cache.get(metadataRoot);
        if (got == null) {
            for (TieredSource t : cache.values()) { // one layout (its listings) for every metadata directory
                got = t;
            }
            FileSystem mfs = LogFileSystems.of(metadataRoot, conf);
            RemoteLogMetadataReplay replay = RemoteLogMetadataReplay.read(mfs, mfs.makeQualified(metadataRoot), true);
            RemoteLayout layout;
            if (got != null) {
                layout = got.layout;
            } else {
                Path remoteRoot = new Path(opts.remotePath);
                FileSystem rfs = LogFileSystems.of(remoteRoot, conf);
                layout = opts.remoteLayout.equals(ReadOptions.AIVEN)
                    ? new AivenLayout(rfs, rfs.makeQualified(remoteRoot), opts.remoteKeyPrefix, opts.remoteKeyPairs, conf)
                    : new LocalTieredLayout(rfs, rfs.makeQualified(remoteRoot));
            }
            got = new TieredSource(replay, layout);
            cache.put(metadataRoot, got);
        }
        return got;
    }

    /** Where a stream starts, per partition (startingOffsets, default latest, or the timestamp options). */
    Map<TopicPartition, Long> startingOffsets(Map<TopicPartition, PartitionLog> open) throws IOException {
        List<TopicPartition> tps = new ArrayList<>(open.keySet());
        Map<TopicPartition, long[]> starts = pick(opts.startingWord, opts.startingOffsets, opts.startingByTimestamp,
            opts.startingTimestamp, tps, "starting");
        Map<TopicPartition, Long> out = new java.util.TreeMap<>();
        for (TopicPartition tp : tps) {
            PartitionLog log = open.get(tp);
            long start = resolveStart(log, starts.get(tp));
            out.put(tp, checkRange(log, start, Math.max(start, log.readableEnd))[0]);
        }
        return out;
    }

    List<LogRange> plan(PushedFilters filters) throws IOException {
        Map<TopicPartition, PartitionLog> open = openLogs();
        List<TopicPartition> tps = new ArrayList<>(open.keySet());
        Map<TopicPartition, long[]> starts = pick(opts.startingWord, opts.startingOffsets, opts.startingByTimestamp,
            opts.startingTimestamp, tps, "starting");
        Map<TopicPartition, long[]> ends = pick(opts.endingWord, opts.endingOffsets, opts.endingByTimestamp,
            opts.endingTimestamp, tps, "ending");
        List<LogRange> ranges = new ArrayList<>();
        for (TopicPartition tp : tps) {
            PartitionLog log = open.get(tp);
            long start = resolveStart(log, starts.get(tp));
            long end = resolveEnd(log, ends.get(tp));
            long[] se = checkRange(log, start, end);
            ranges.addAll(log.ranges(se[0], se[1], !opts.failOnDataLoss));
        }
        ranges = split(ranges);
        List<LogRange> out = new ArrayList<>();
        for (LogRange r : ranges) {
            if (!filters.keeps(r)) {
                continue;
            }
            long s = Math.max(r.start(), filters.offsetLo);
            long e = Math.min(r.end(), filters.offsetHi);
            if (s < e && filters.timestampLo != null) {
                long found = logs.get(new TopicPartition(r.topic(), r.partition()))
                    .offsetForTimestamp(Math.max(filters.timestampLo, 0));
                s = found < 0 ? e : Math.max(s, found);
            }
            if (s < e) {
                out.add(r.withBounds(s, e));
            }
        }
        return out;
    }

    /** Per partition {kind, value}: kind 0 = offset (-2 earliest, -1 latest), 1 = timestamp. */
    private static Map<TopicPartition, long[]> pick(String word, Map<TopicPartition, Long> offsets,
            Map<TopicPartition, Long> byTs, Long tsAll, List<TopicPartition> tps, String what) {
        Map<TopicPartition, long[]> out = new HashMap<>();
        if (tsAll != null) {
            tps.forEach(tp -> out.put(tp, new long[] {1, tsAll}));
            return out;
        }
        if (byTs != null) {
            if (!byTs.keySet().equals(new java.util.HashSet<>(tps))) {
                List<TopicPartition> missing = new ArrayList<>(tps);
                missing.removeAll(byTs.keySet());
                throw new IllegalArgumentException(what + "OffsetsByTimestamp must cover every assigned partition; "
                    + "missing " + missing);
            }
            tps.forEach(tp -> out.put(tp, new long[] {1, byTs.get(tp)}));
            return out;
        }
        if (offsets != null) {
            if (!offsets.keySet().equals(new java.util.HashSet<>(tps))) {
                throw new IllegalArgumentException(what + "Offsets must name exactly the assigned partitions ("
                    + tps + "); use -1 for latest and -2 for earliest");
            }
            tps.forEach(tp -> out.put(tp, new long[] {0, offsets.get(tp)}));
            return out;
        }
        long v = "earliest".equals(word) ? ReadOptions.EARLIEST : ReadOptions.LATEST;
        tps.forEach(tp -> out.put(tp, new long[] {0, v}));
        return out;
    }

    private long resolveStart(PartitionLog log, long[] how) throws IOException {
        if (how[0] == 1) {
            long off = log.offsetForTimestamp(how[1]);
            if (off < 0) {
                if (opts.startAtLatestWhenNoTimestamp) {
                    return log.readableEnd;
                }
                throw new IllegalStateException("no record in " + log.tp + " has a timestamp at or after " + how[1]
                    + " (set startingOffsetsByTimestampStrategy=latest to start at the end instead)");
            }
            return Math.min(off, log.readableEnd);
        }
        if (how[1] == ReadOptions.EARLIEST) {
            return log.logStartOffset;
        }
        return how[1] == ReadOptions.LATEST ? log.readableEnd : how[1];
    }

    private long resolveEnd(PartitionLog log, long[] how) throws IOException {
        if (how[0] == 1) {
            long off = log.offsetForTimestamp(how[1]);
            return off < 0 ? log.readableEnd : Math.min(off, log.readableEnd);
        }
        return how[1] == ReadOptions.LATEST ? log.readableEnd : how[1];
    }

    long[] checkRange(PartitionLog log, long start, long end) {
        List<String> problems = new ArrayList<>();
        if (start < log.logStartOffset) {
            problems.add("offsets " + start + ".." + (log.logStartOffset - 1) + " were deleted (log start offset is "
                + log.logStartOffset + ")");
            start = log.logStartOffset;
        }
        if (end > log.readableEnd) {
            problems.add("offsets up to " + end + " were asked for but the log ends at " + log.readableEnd);
            end = log.readableEnd;
        }
        if (start > end) {
            problems.add("start offset " + start + " is past the end " + end);
            start = end;
        }
        if (!problems.isEmpty() && opts.failOnDataLoss) {
            throw new IllegalStateException(log.tp + ": " + String.join("; ", problems)
                + " (set failOnDataLoss=false to read what is left)");
        }
        return new long[] {start, end};
    }

    /** Kafka's KafkaOffsetRangeCalculator: cap each range at maxRecordsPerPartition, then split to minPartitions. */
    List<LogRange> split(List<LogRange> in) {
        List<LogRange> ranges = new ArrayList<>();
        for (LogRange r : in) {
            if (r.size() > 0) {
                ranges.add(r);
            }
        }
        if (opts.maxRecordsPerPartition != null) {
            List<LogRange> out = new ArrayList<>();
            for (LogRange r : ranges) {
                out.addAll(pieces(r, (r.size() + opts.maxRecordsPerPartition - 1) / opts.maxRecordsPerPartition));
            }
            ranges = out;
        }
        if (opts.minPartitions != null && ranges.size() < opts.minPartitions) {
            // Spark's calculator: ranges that get one part are set aside from the proportions of the rest
            long total = 0;
            for (LogRange r : ranges) {
                total += r.size();
            }
            java.util.Set<TopicPartition> whole = new java.util.HashSet<>();
            for (LogRange r : ranges) {
                if (partCount(r.size(), total, opts.minPartitions) == 1) {
                    whole.add(new TopicPartition(r.topic(), r.partition()));
                }
            }
            long rest = total;
            int wholeRanges = 0;
            for (LogRange r : ranges) {
                if (whole.contains(new TopicPartition(r.topic(), r.partition()))) {
                    rest -= r.size();
                    wholeRanges++;
                }
            }
            int restMin = Math.max(opts.minPartitions - wholeRanges, 1);
            List<LogRange> out = new ArrayList<>();
            for (LogRange r : ranges) {
                long parts = whole.contains(new TopicPartition(r.topic(), r.partition())) ? 1
                    : partCount(r.size(), rest, restMin);
                long start = r.start();
                long remaining = r.size();
                for (long part = 0; part < parts; part++) { // each piece takes what remains over the parts left
                    long size = remaining / (parts - part);
                    remaining -= size;
                    if (size > 0) {
                        out.add(r.withBounds(start, start + size));
                    }
                    start += size;
                }
            }
            ranges = out;
        }
        return ranges;
    }

    /** Spark's share of {@code minParts} for a range, rounded half up ({@code math.round}), at least one. */
    private static long partCount(long size, long total, int minParts) {
        return Math.max(Math.round((double) size / total * minParts), 1);
    }

    private static List<LogRange> pieces(LogRange r, long parts) {
        List<LogRange> out = new ArrayList<>();
        if (parts <= 1) {
            out.add(r);
            return out;
        }
        long prev = r.start();
        for (long i = 1; i <= parts; i++) {
            long cut = r.start() + java.math.BigInteger.valueOf(r.size()).multiply(java.math.BigInteger.valueOf(i))
                .divide(java.math.BigInteger.valueOf(parts)).longValueExact();
            if (cut > prev) {
                out.add(r.withBounds(prev, cut));
            }
            prev = cut;
        }
        return out;
    }
}
