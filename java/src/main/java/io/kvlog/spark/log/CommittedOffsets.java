package io.kvlog.spark.log;

import io.kvlog.spark.fs.ExclusiveCreate;
import io.kvlog.spark.fs.LogFileSystems;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;

/**
 * A data directory's committed offsets: what kvlog's sinks have made visible, per partition, published by one
 * small write that is never renamed or overwritten.
 *
 * <p>Each commit creates the root-level file {@code kvlog-committed-offsets.<20-digit version>} exclusively (the
 * next version; a second writer of the same version fails), holding every governed partition's log start and
 * committed end offset and each streaming sink's last applied epoch, followed by a CRC-32C of the text. Readers
 * take the newest version whose CRC holds (a torn or half-written newest file is a commit that did not happen)
 * and, for every partition it names, read nothing at or past the committed end: segments written there are an
 * unfinished or failed job's, the way a Kafka consumer stops at the high watermark. A partition it does not name
 * is read as before. The format is shared with {@code kvlog.committed_offsets} in Python.
 */
public final class CommittedOffsets {
    static final String PREFIX = "kvlog-committed-offsets.";
    static final String MAGIC = "kvlog-committed-offsets 0";
    /** Versions kept besides the newest, for readers that listed an older one a moment before. */
    static final int KEEP = 3;

    /** A governed partition's log start offset and committed end offset. */
    public record Range(long start, long end) implements java.io.Serializable {
    }

    public final long version;
    final String job;
    public final Map<TopicPartition, Range> partitions;
    public final Map<String, Long> sinks;
    /** The highest version named in the directory, valid or not: the next commit creates {@code maxListed + 1}. */
    public final long maxListed;
    /** The backup run these offsets are ({@link #atBackupRun}), 0 for a directory's own newest version. */
    final long backupRun;
    /** Of a backup run: the partitions a later run rewrote, with the first such run (their files moved aside). */
    final Map<TopicPartition, Long> rewrittenLater;
    /** Partitions a broker served past their committed end ({@link #releasedByBroker}): not governed. */
    public final java.util.Set<TopicPartition> released;

    CommittedOffsets(long version, String job, Map<TopicPartition, Range> partitions, Map<String, Long> sinks,
                     long maxListed) {
        this(version, job, partitions, sinks, maxListed, 0, Map.of(), java.util.Set.of());
    }

    private CommittedOffsets(long version, String job, Map<TopicPartition, Range> partitions, Map<String, Long> sinks,
                             long maxListed, long backupRun, Map<TopicPartition, Long> rewrittenLater,
                             java.util.Set<TopicPartition> released) {
        this.version = version;
        this.job = job;
        this.partitions = partitions;
        this.sinks = sinks;
        this.maxListed = maxListed;
        this.backupRun = backupRun;
        this.rewrittenLater = rewrittenLater;
        this.released = released;
    }

    /** Whether a sink writing partition {@code tp} starts at its committed end (else at its end as it is). */
    public boolean governs(TopicPartition tp) {
        return version > 0 && !released.contains(tp);
    }

    /**
     * {@code found} without the partitions a Kafka broker has served since: in a broker's log directory (one with
     * {@code meta.properties}), those whose high watermark in {@code replication-offset-checkpoint} is past their
     * committed end. Only a broker writes that file (and kvlog adopt/restore, which hand a directory to one), and
     * its high watermark counts records it acknowledged: not a failed job's leftovers. As
     * {@code kvlog.committed_offsets.released_by_broker}.
     */
    static CommittedOffsets releasedByBroker(FileSystem fs, Path root, CommittedOffsets found) throws IOException {
        if (found.version <= 0 || !fs.exists(new Path(root, "meta.properties"))) {
            return found;
        }
        Map<TopicPartition, Long> hws;
        try {
            hws = LogStartCheckpoint.read(fs, root, "replication-offset-checkpoint");
        } catch (IllegalStateException e) {
            return found; // a damaged checkpoint proves nothing
        }
        java.util.Set<TopicPartition> released = new java.util.TreeSet<>();
        hws.forEach((tp, hw) -> {
            if (hw > found.partitions.getOrDefault(tp, new Range(0, 0)).end()) {
                released.add(tp);
            }
        });
        return released.isEmpty() ? found : new CommittedOffsets(found.version, found.job, found.partitions,
            found.sinks, found.maxListed, found.backupRun, found.rewrittenLater, released);
    }

    /**
     * What a reader of partition {@code tp} (directory {@code dir}) may see: null when the directory is not
     * governed (read it all), its committed range when it is ((0, 0) for a partition no version lists). A pinned
     * backup run refuses a partition a later run rewrote: the files that run holds are no longer all in place.
     */
    public Range rangeFor(TopicPartition tp, Path dir) {
        Long later = rewrittenLater.get(tp);
        if (later != null) {
            throw new BackupRunException(LogFileSystems.shown(dir.toString()) + ": backup run " + later
                + " moved aside files of this partition that run " + backupRun + " holds (the source compacted or "
                + "deleted them), so run " + backupRun + " of it no longer reads in place; read the newest run, or "
                + "restore it with kvlog restore --run " + backupRun);
        }
        return governs(tp) ? partitions.getOrDefault(tp, new Range(0, 0)) : null;
    }

    static CommittedOffsets none() {
        return new CommittedOffsets(0, "", new TreeMap<>(), new TreeMap<>(), 0);
    }

    static String fileName(long version) {
        return PREFIX + String.format("%020d", version);
    }

    static long versionOf(String name) {
        if (!name.startsWith(PREFIX) || name.length() != PREFIX.length() + 20) {
            return -1;
        }
        String digits = name.substring(PREFIX.length());
        return digits.chars().allMatch(c -> c >= '0' && c <= '9') ? Long.parseLong(digits) : -1;
    }

    /** The newest valid version under {@code root} ({@link #none()} when there is none). */
    public static CommittedOffsets latest(FileSystem fs, Path root) throws IOException {
        for (int attempt = 0; ; attempt++) {
            FileStatus[] listing;
            try {
                listing = fs.listStatus(root);
            } catch (FileNotFoundException e) {
                return none();
            }
            long[] versions = java.util.Arrays.stream(listing).mapToLong(s -> versionOf(s.getPath().getName()))
                .filter(v -> v > 0).sorted().toArray();
            if (versions.length == 0) {
                return none();
            }
            long maxListed = versions[versions.length - 1];
            boolean vanished = false;
            for (int i = versions.length - 1; i >= 0; i--) {
                byte[] data;
                try (InputStream in = fs.open(new Path(root, fileName(versions[i])))) {
                    data = in.readNBytes(64 << 20);
                } catch (FileNotFoundException e) {
                    vanished = true; // removed as too old by a commit meanwhile: list again
                    break;
                }
                CommittedOffsets parsed = parse(data, versions[i], maxListed);
                if (parsed != null) {
                    return releasedByBroker(fs, root, parsed);
                }
            }
            if (!vanished || attempt >= 3) {
                return new CommittedOffsets(0, "", new TreeMap<>(), new TreeMap<>(), maxListed);
            }
        }
    }

    // A backup (kvlog backup) keeps every run's version as .kvlog-backup/runs/<20-digit run>/committed-offsets, so
    // a reader can be pinned to an older run. A later run that moved aside bytes inside an older run's range (a
    // segment the source compacted or deleted) leaves the empty .kvlog-backup/rewritten/<topic>-<partition>.<run>:
    // that partition of every earlier run no longer reads in place. As kvlog.committed_offsets.at_backup_run.
    static final String BACKUP_RUNS = ".kvlog-backup/runs";
    static final String REWRITTEN = ".kvlog-backup/rewritten";

    static String backupRunFile(long run) {
        return BACKUP_RUNS + "/" + String.format("%020d", run) + "/committed-offsets";
    }

    /**
     * Backup run {@code run} of the backup at {@code root}: its committed offsets, with the partitions a later run
     * rewrote ({@link #rangeFor} refuses them). The rewritten markers are listed on every call (once per root and
     * plan): the next run may add one at any time. Throws {@link BackupRunException} when the run has no
     * committed-offsets file (not a backup, a run that does not exist, or one older than reads in place) or a
     * damaged one.
     */
    public static CommittedOffsets atBackupRun(FileSystem fs, Path root, long run) throws IOException {
        String rel = backupRunFile(run);
        byte[] data;
        try (InputStream in = fs.open(new Path(root, rel))) {
            data = in.readNBytes(64 << 20);
        } catch (FileNotFoundException e) {
            throw new BackupRunException(LogFileSystems.shown(root.toString()) + " holds no backup run " + run
                + " that reads in place (no " + rel + "): read the newest run, or restore that run with kvlog "
                + "restore --run " + run);
        }
        CommittedOffsets parsed = parse(data, run, run);
        if (parsed == null) {
            throw new BackupRunException(LogFileSystems.shown(new Path(root, rel).toString())
                + " is damaged (its CRC-32C does not hold)");
        }
        Map<TopicPartition, Long> rewritten = new TreeMap<>();
        FileStatus[] markers;
        try {
            markers = fs.listStatus(new Path(root, REWRITTEN));
        } catch (FileNotFoundException e) {
            markers = new FileStatus[0];
        }
        for (FileStatus st : markers) {
            String name = st.getPath().getName();
            int dot = name.lastIndexOf('.');
            String digits = dot < 0 ? "" : name.substring(dot + 1);
            if (digits.length() != 20 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                continue;
            }
            TopicPartition tp = LogDiscovery.parse(name.substring(0, dot));
            long later = Long.parseLong(digits);
            if (tp != null && later > run) {
                rewritten.merge(tp, later, Math::min);
            }
        }
        return new CommittedOffsets(parsed.version, parsed.job, parsed.partitions, parsed.sinks, parsed.maxListed, run,
            rewritten, java.util.Set.of());
    }

    /** The jobs of every valid version still listed: a lease naming one of them outlived a finished commit. */
    public static java.util.Set<String> committedJobs(FileSystem fs, Path root) throws IOException {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (FileStatus st : fs.listStatus(root)) {
            long v = versionOf(st.getPath().getName());
            if (v <= 0) {
                continue;
            }
            try (InputStream in = fs.open(st.getPath())) {
                CommittedOffsets parsed = parse(in.readNBytes(64 << 20), v, v);
                if (parsed != null) {
                    out.add(parsed.job);
                }
            } catch (FileNotFoundException e) {
                // pruned meanwhile
            }
        }
        return out;
    }

    /** The parsed file, or null when it is torn, damaged or of another version than its name says. */
    static CommittedOffsets parse(byte[] data, long version, long maxListed) {
        String text = new String(data, StandardCharsets.UTF_8);
        int crcLine = text.lastIndexOf("crc32c ");
        if (crcLine < 0 || (crcLine > 0 && text.charAt(crcLine - 1) != '\n')) {
            return null;
        }
        String body = text.substring(0, crcLine);
        String tail = text.substring(crcLine + 7).trim();
        CRC32C crc = new CRC32C();
        byte[] bodyBytes = body.getBytes(StandardCharsets.UTF_8);
        crc.update(bodyBytes, 0, bodyBytes.length);
        if (!tail.equals(String.format("%08x", crc.getValue()))) {
            return null;
        }
        String[] lines = body.split("\n");
        try {
            if (!lines[0].equals(MAGIC) || Long.parseLong(field(lines[1], "version")) != version) {
                return null;
            }
            String job = field(lines[2], "job");
            int n = Integer.parseInt(field(lines[3], "partitions"));
            Map<TopicPartition, Range> parts = new TreeMap<>();
            int i = 4;
            for (int k = 0; k < n; k++, i++) {
                String[] f = lines[i].split(" ");
                parts.put(new TopicPartition(f[0], Integer.parseInt(f[1])),
                    new Range(Long.parseLong(f[2]), Long.parseLong(f[3])));
            }
            int m = Integer.parseInt(field(lines[i++], "sinks"));
            Map<String, Long> sinks = new TreeMap<>();
            for (int k = 0; k < m; k++, i++) {
                String[] f = lines[i].split(" ");
                sinks.put(f[0], Long.parseLong(f[1]));
            }
            return i == lines.length ? new CommittedOffsets(version, job, parts, sinks, maxListed) : null;
        } catch (RuntimeException e) {
            return null; // a CRC that matches text of another shape: not ours to trust
        }
    }

    private static String field(String line, String name) {
        if (!line.startsWith(name + " ")) {
            throw new IllegalArgumentException("expected " + name);
        }
        return line.substring(name.length() + 1);
    }

    /** The file's text for {@code version}, CRC line included. */
    public static byte[] format(long version, String job, Map<TopicPartition, Range> parts, Map<String, Long> sinks) {
        StringBuilder b = new StringBuilder();
        b.append(MAGIC).append('\n').append("version ").append(version).append('\n').append("job ").append(job)
            .append('\n').append("partitions ").append(parts.size()).append('\n');
        new TreeMap<>(parts).forEach((tp, r) -> b.append(tp.topic()).append(' ').append(tp.partition()).append(' ')
            .append(r.start()).append(' ').append(r.end()).append('\n'));
        b.append("sinks ").append(sinks.size()).append('\n');
        new TreeMap<>(sinks).forEach((s, e) -> b.append(s).append(' ').append(e).append('\n'));
        byte[] body = b.toString().getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(body, 0, body.length);
        return (b + "crc32c " + String.format("%08x", crc.getValue()) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Publishes {@code version} exclusively: false when that version exists already (another commit won the
     * race; the caller re-reads and checks for conflicts). This one write is the commit point.
     */
    public static boolean publish(FileSystem fs, Path root, long version, byte[] text) throws IOException {
        FileSystem raw = ExclusiveCreate.raw(fs);
        Path p = new Path(root, fileName(version));
        try (FSDataOutputStream out = ExclusiveCreate.create(raw, p, 4096)) {
            out.write(text);
            if (out.hasCapability(StreamCapabilities.HSYNC)) {
                out.hsync();
            }
        } catch (FileAlreadyExistsException e) {
            return false;
        }
        return true;
    }

    /** Removes versions older than the newest {@link #KEEP} + 1 (best effort: a reader may hold one open). */
    public static void prune(FileSystem fs, Path root, long newest) {
        try {
            for (FileStatus st : fs.listStatus(root)) {
                long v = versionOf(st.getPath().getName());
                if (v > 0 && v < newest - KEEP) {
                    fs.delete(st.getPath(), false);
                }
            }
        } catch (IOException e) {
            // old versions are harmless; the next commit tries again
        }
    }
}
