package io.kvlog.spark.read;

import io.kvlog.spark.fs.LogFileSystems;
import io.kvlog.spark.log.LogDiscovery;
import io.kvlog.spark.log.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.fs.Path;

/** The partitions a read's subscription picks among those {@link LogDiscovery} found, and its messages. */
final class Subscription {
    private Subscription() {
    }

    static String where(List<String> paths) {
        List<String> out = new ArrayList<>();
        for (String p : paths) {
            out.add(LogFileSystems.shown(p));
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
