package io.kvlog.spark.read;

import io.kvlog.spark.log.AbortedTransactions;
import io.kvlog.spark.log.SegmentList;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * Offsets {@code [start, end)} of one partition log: one Spark task reads one range. With {@code skipDamage}
 * ({@code failOnDataLoss=false}) a damaged batch ends its segment file for this read, with a warning, instead of
 * failing the task; the Python source skips exactly the same stretch (kvlog.damage).
 */
record LogRange(String topic, int partition, SegmentList segments, long start, long end,
                AbortedTransactions aborted, boolean skipDamage, long logEnd) implements InputPartition {
    long size() {
        return end - start;
    }

    LogRange withBounds(long s, long e) {
        return new LogRange(topic, partition, segments, s, e, aborted.within(s, e), skipDamage, logEnd);
    }
}
