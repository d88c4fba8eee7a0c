package io.kvlog.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/** Offsets {@code [start, end)} of one partition log: one Spark task reads one range. */
record LogRange(String topic, int partition, SegmentList segments, long start, long end,
                AbortedTransactions aborted) implements InputPartition {
    long size() {
        return end - start;
    }

    LogRange withBounds(long s, long e) {
        return new LogRange(topic, partition, segments, s, e, aborted.within(s, e));
    }
}
