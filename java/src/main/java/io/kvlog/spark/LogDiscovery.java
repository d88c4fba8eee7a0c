package io.kvlog.spark;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Partition directories ({@code <topic>-<partition>}) under each path; a path may itself be one. */
final class LogDiscovery {
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
    static Map<TopicPartition, Path> discoverIfAny(Path root, Configuration conf) throws IOException {
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
                if (st.isDirectory() && parse(n) != null && holdsKafkaFiles(fs, st.getPath())) {
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

    /** A path as messages show it: a URI without its credentials ({@code key:secret@}) or query. */
    static String shown(String raw) {
        int scheme = raw.indexOf("://");
        if (scheme < 0) {
            return raw;
        }
        String rest = raw.substring(scheme + 3);
        int q = rest.indexOf('?');
        rest = q >= 0 ? rest.substring(0, q) : rest;
        int slash = rest.indexOf('/');
        String authority = slash >= 0 ? rest.substring(0, slash) : rest;
        String path = slash >= 0 ? rest.substring(slash) : "";
        authority = authority.substring(authority.lastIndexOf('@') + 1);
        String out = raw.substring(0, scheme) + "://" + authority + path;
        while (out.endsWith("/")) {
            out = out.substring(0, out.length() - 1);
        }
        return out;
    }

    static String where(List<String> paths) {
        List<String> out = new ArrayList<>();
        for (String p : paths) {
            out.add(shown(p));
        }
        return out.size() == 1 ? out.get(0) : "[" + String.join(", ", out) + "]";
    }

    private static String listing(List<String> names) {
        if (names.isEmpty()) {
            return "none";
        }
        int limit = 20;
        String more = names.size() > limit ? " and " + (names.size() - limit) + " more" : "";
        return String.join(", ", names.subList(0, Math.min(limit, names.size()))) + more;
    }

    /** The error for subscribed/assigned topics with no partition directory (the Python source says the same). */
    static String missingTopics(String what, List<String> missing, java.util.Collection<String> topics, List<String> paths) {
        List<String> quoted = new ArrayList<>();
        for (String t : missing) {
            quoted.add("'" + t + "'");
        }
        boolean one = missing.size() == 1;
        return what + (one ? " topic " : " topics ") + String.join(", ", quoted) + (one ? " does" : " do")
            + " not exist under " + where(paths) + "; topics there: " + listing(new ArrayList<>(new TreeSet<>(topics)));
    }

    /**
     * The partitions subscribe / subscribePattern / assign pick. A subscribed or assigned topic (or assigned
     * partition) with no directory is an error naming it and what there is ({@code strict}; a running stream
     * leaves a topic that went away to failOnDataLoss). A pattern matches whole names and skips Kafka's internal
     * topics ({@code __*}) unless includeInternalTopics is true; matching nothing reads nothing.
     */
    static Map<TopicPartition, Path> select(Map<TopicPartition, Path> found, ReadOptions o, boolean strict) {
        Set<String> topics = new TreeSet<>();
        for (TopicPartition tp : found.keySet()) {
            topics.add(tp.topic());
        }
        Map<TopicPartition, Path> out = new TreeMap<>();
        if (o.assign != null) {
            List<String> missing = new ArrayList<>();
            for (Map.Entry<String, List<Integer>> e : o.assign.entrySet()) {
                if (!e.getValue().isEmpty() && !topics.contains(e.getKey())) {
                    missing.add(e.getKey());
                }
            }
            if (strict && !missing.isEmpty()) {
                throw new IllegalArgumentException(missingTopics("assigned", missing, topics, o.paths));
            }
            for (Map.Entry<String, List<Integer>> e : o.assign.entrySet()) {
                for (int p : e.getValue()) {
                    TopicPartition tp = new TopicPartition(e.getKey(), p);
                    if (!found.containsKey(tp)) {
                        if (!strict) {
                            continue;
                        }
                        List<String> have = new ArrayList<>();
                        for (TopicPartition f : found.keySet()) {
                            if (f.topic().equals(e.getKey())) {
                                have.add(Integer.toString(f.partition()));
                            }
                        }
                        throw new IllegalArgumentException("assigned partition " + tp + " has no log directory under "
                            + where(o.paths) + "; " + e.getKey() + " has partitions " + listing(have));
                    }
                    out.put(tp, found.get(tp));
                }
            }
            return out;
        }
        if (o.subscribe != null) {
            List<String> missing = new ArrayList<>();
            for (String t : o.subscribe) {
                if (!topics.contains(t) && !missing.contains(t)) {
                    missing.add(t);
                }
            }
            if (strict && !missing.isEmpty()) {
                throw new IllegalArgumentException(missingTopics("subscribed", missing, topics, o.paths));
            }
        }
        for (Map.Entry<TopicPartition, Path> e : found.entrySet()) {
            String topic = e.getKey().topic();
            boolean keep = o.subscribe != null ? o.subscribe.contains(topic)
                : o.subscribePattern.matcher(topic).matches()
                    && (o.includeInternalTopics || !OptionNames.isInternalTopic(topic));
            if (keep) {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }
}
