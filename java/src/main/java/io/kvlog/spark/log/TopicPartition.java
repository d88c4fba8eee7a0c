package io.kvlog.spark.log;

import java.io.Serializable;

/** A topic name and partition number, ordered as the Python source sorts them. */
public record TopicPartition(String topic, int partition) implements Comparable<TopicPartition>, Serializable {
    @Override
    public int compareTo(TopicPartition o) {
        int c = topic.compareTo(o.topic);
        return c != 0 ? c : Integer.compare(partition, o.partition);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
