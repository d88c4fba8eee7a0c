package io.kvlog.spark.log;

import io.kvlog.spark.fs.LogFileSystems;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Partition directories ({@code <topic>-<partition>}) under each path; a path may itself be one. */
public final class LogDiscovery {
    /** Names a broker writes: a legal topic name, then the partition number without sign or leading zeros. */
    private static final Pattern PARTITION_DIR = Pattern.compile("^([a-zA-Z0-9._-]{1,249})-(0|[1-9][0-9]{0,9})$");
    /** Files that make a directory a Kafka partition besides those named by a 20-digit offset. */
    private static final java.util.Set<String> PARTITION_FILES =
        java.util.Set.of("partition.metadata", "leader-epoch-checkpoint", "quorum-state");

    private LogDiscovery() {
    }

    static TopicPartition parse(String name) {
        Matcher m = PARTITION_DIR.matcher(name);
        if (!m.matches() || m.group(1).equals(".") || m.group(1).equals("..")) {
            return null;
        }
        try {
            return new TopicPartition(m.group(1), Integer.parseInt(m.group(2)));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A sink's data directory: its partition directories (empty ones too), none when it is new or empty. */
    public static Map<TopicPartition, Path> discoverIfAny(Path root, Configuration conf) throws IOException {
        FileSystem fs = LogFileSystems.of(root, conf);
        root = fs.makeQualified(root);
        Map<TopicPartition, Path> found = new TreeMap<>();
        FileStatus[] listing;
        try {
            listing = fs.listStatus(root);
        } catch (java.io.FileNotFoundException e) {
            return found;
        }
        for (FileStatus st : listing) {
            TopicPartition tp = st.isDirectory() ? parse(st.getPath().getName()) : null;
            if (tp != null) {
                refuseEscape(fs, root, st.getPath());
                found.put(tp, st.getPath());
            }
        }
        return found;
    }

    /**
     * The partitions found, and {@code caps}: where a partition found in several data directories (a cluster's
     * brokers' replicas) stops, the replica read chosen by {@link ClusterReplicas}.
     */
    public static final class Found extends TreeMap<TopicPartition, Path> {
        private static final long serialVersionUID = 1L;
        public final Map<TopicPartition, Long> caps = new TreeMap<>();
    }

    public static Found discover(List<String> paths, Configuration conf) throws IOException {
        return discover(paths, conf, false);
    }

    /**
     * Partition directories under each path. A partition in several data directories is a cluster's: read from the
     * replica {@link ClusterReplicas} chooses ({@code newest}: diverged replicas read as the newest leader's).
     */
    public static Found discover(List<String> paths, Configuration conf, boolean newest) throws IOException {
        Found found = new Found();
        Map<TopicPartition, List<Path>> replicated = new TreeMap<>();
        Map<Path, ClusterReplicas.Directory> dataDirs = new java.util.LinkedHashMap<>();
        for (String raw : paths) {
            Path path = new Path(raw);
            FileSystem fs = LogFileSystems.of(path, conf);
            boolean directory;
            try {
                directory = fs.getFileStatus(path).isDirectory();  // (exists() first was the same requests again)
            } catch (java.io.FileNotFoundException e) {
                directory = false;
            }
            if (!directory) {
                throw new IllegalArgumentException("no directory at " + raw);
            }
            path = fs.makeQualified(path);
            List<Path> children = new ArrayList<>();
            boolean ownSegments = false;
            for (FileStatus st : fs.listStatus(path)) {
                String n = st.getPath().getName();
                if (st.isDirectory() && parse(n) != null && holdsKafkaFiles(fs, st.getPath())) {
                    children.add(st.getPath());
                }
                if (n.endsWith(".log") && n.indexOf('.') == 20 && n.substring(0, 20).chars().allMatch(Character::isDigit)) {
                    ownSegments = true;
                }
            }
            TopicPartition self = parse(path.getName());
            Map<TopicPartition, Path> candidates = new TreeMap<>();
            boolean dataDir = !(self != null && (ownSegments || children.isEmpty()));
            if (!dataDir) {
                candidates.put(self, path);
            } else {
                dataDirs.put(path, ClusterReplicas.directory(fs, path));
                for (Path c : children) {
                    refuseEscape(fs, path, c);
                    candidates.put(parse(c.getName()), c);
                }
            }
            for (Map.Entry<TopicPartition, Path> e : candidates.entrySet()) {
                Path before = found.get(e.getKey());
                if (before != null && !before.equals(e.getValue())) {
                    if (!dataDir || !dataDirs.containsKey(before.getParent())) {
                        throw new IllegalArgumentException("partition " + e.getKey() + " is in both " + before + " and "
                            + e.getValue() + ": give the data directories of a cluster's brokers to read its replicas "
                            + "as one");
                    }
                    replicated.computeIfAbsent(e.getKey(), k -> new ArrayList<>(List.of(before))).add(e.getValue());
                    continue;
                }
                found.put(e.getKey(), e.getValue());
            }
        }
        if (!replicated.isEmpty()) {
            ClusterReplicas.sameCluster(new ArrayList<>(dataDirs.values()));
            for (Map.Entry<TopicPartition, List<Path>> e : replicated.entrySet()) {
                FileSystem fs = LogFileSystems.of(e.getValue().get(0), conf);
                ClusterReplicas.Choice c = ClusterReplicas.choose(fs, e.getKey(), e.getValue(), dataDirs, newest);
                found.put(e.getKey(), c.path());
                found.caps.put(e.getKey(), c.end());
            }
        }
        return found;
    }

    /** Whether a directory holds a Kafka partition's files (the Python source's {@code looks_like_partition}). */
    private static boolean holdsKafkaFiles(FileSystem fs, Path dir) throws IOException {
        for (FileStatus f : fs.listStatus(dir)) {
            String n = f.getPath().getName();
            if (PARTITION_FILES.contains(n)
                    || (n.length() >= 20 && (n.length() == 20 || n.charAt(20) == '.')
                        && n.substring(0, 20).chars().allMatch(Character::isDigit))) {
                return true;
            }
        }
        return false;
    }

    /** A local partition directory must not resolve outside the directory given (a symlink elsewhere). */
    private static void refuseEscape(FileSystem fs, Path root, Path child) throws IOException {
        if (!"file".equals(fs.getUri().getScheme())) {
            return;
        }
        java.nio.file.Path realRoot = java.nio.file.Paths.get(root.toUri()).toRealPath();
        java.nio.file.Path real = java.nio.file.Paths.get(child.toUri()).toRealPath();
        if (!real.startsWith(realRoot)) {
            throw new IllegalArgumentException(child + " resolves outside " + root + " (a symlink?); refusing it");
        }
    }
}
