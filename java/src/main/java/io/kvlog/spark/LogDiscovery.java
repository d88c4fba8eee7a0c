package io.kvlog.spark;

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
final class LogDiscovery {
    private static final Pattern PARTITION_DIR = Pattern.compile("^(.+)-(\\d+)$");

    private LogDiscovery() {
    }

    static TopicPartition parse(String name) {
        Matcher m = PARTITION_DIR.matcher(name);
        if (!m.matches()) {
            return null;
        }
        try {
            return new TopicPartition(m.group(1), Integer.parseInt(m.group(2)));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static Map<TopicPartition, Path> discover(List<String> paths, Configuration conf) throws IOException {
        Map<TopicPartition, Path> found = new TreeMap<>();
        for (String raw : paths) {
            Path path = new Path(raw);
            FileSystem fs = LogFileSystems.of(path, conf);
            if (!fs.exists(path) || !fs.getFileStatus(path).isDirectory()) {
                throw new IllegalArgumentException("no directory at " + raw);
            }
            path = fs.makeQualified(path);
            List<Path> children = new ArrayList<>();
            boolean ownSegments = false;
            for (FileStatus st : fs.listStatus(path)) {
                String n = st.getPath().getName();
                if (st.isDirectory() && parse(n) != null) {
                    children.add(st.getPath());
                }
                if (n.endsWith(".log") && n.indexOf('.') == 20 && n.substring(0, 20).chars().allMatch(Character::isDigit)) {
                    ownSegments = true;
                }
            }
            TopicPartition self = parse(path.getName());
            Map<TopicPartition, Path> candidates = new TreeMap<>();
            if (self != null && (ownSegments || children.isEmpty())) {
                candidates.put(self, path);
            } else {
                for (Path c : children) {
                    refuseEscape(fs, path, c);
                    candidates.put(parse(c.getName()), c);
                }
            }
            for (Map.Entry<TopicPartition, Path> e : candidates.entrySet()) {
                Path before = found.get(e.getKey());
                if (before != null && !before.equals(e.getValue())) {
                    throw new IllegalArgumentException("partition " + e.getKey() + " is in both " + before + " and "
                        + e.getValue());
                }
                found.put(e.getKey(), e.getValue());
            }
        }
        return found;
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

    /** The partitions subscribe / subscribePattern / assign pick (default: all). */
    static Map<TopicPartition, Path> select(Map<TopicPartition, Path> found, ReadOptions o) {
        Map<TopicPartition, Path> out = new TreeMap<>();
        if (o.assign != null) {
            for (Map.Entry<String, List<Integer>> e : o.assign.entrySet()) {
                for (int p : e.getValue()) {
                    TopicPartition tp = new TopicPartition(e.getKey(), p);
                    if (!found.containsKey(tp)) {
                        throw new IllegalArgumentException("assigned partition " + tp + " has no log directory");
                    }
                    out.put(tp, found.get(tp));
                }
            }
            return out;
        }
        for (Map.Entry<TopicPartition, Path> e : found.entrySet()) {
            String topic = e.getKey().topic();
            boolean keep = o.subscribe != null ? o.subscribe.contains(topic)
                : o.subscribePattern == null || o.subscribePattern.matcher(topic).matches();
            if (keep) {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }
}
