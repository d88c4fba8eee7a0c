package io.kvlog.spark.write;

import io.kvlog.spark.format.RecordBatchV2Encoder;
import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a sink routes and encodes rows, fixed on the driver when the write is planned: the topic option, the
 * partition counts rows are routed by, and the batch encoding. Both the tasks that encode rows before the exchange
 * ({@link SinkExchangeExec}) and the writers that encode them after it ({@link SinkWriter}) use it, so the two
 * agree with each other and with {@link KafkaPartitionFunction}.
 */
record SinkRouting(String topicOption, int defaultPartitions, TreeMap<String, Integer> partitionCounts, int codec,
                   int recordsPerBatch, int maxBatchBytes, long maxOpenBytes) implements Serializable {
    /** Open batches one task before the batch exchange holds across its partitions before it closes them all. */
    static final long DEFAULT_MAX_OPEN_BYTES = 64L << 20;

    int partitionsOf(String topic) {
        Integer n = partitionCounts.get(topic);
        return n != null ? n : defaultPartitions;
    }

    /** From the write's options and the counts read at planning. */
    static SinkRouting of(Map<String, String> options, TreeMap<String, Integer> counts) {
        return of(options, counts, Integer.MAX_VALUE);
    }

    /**
     * {@code batchLimit}: the uncompressed size batches close at whatever {@code kvlog.maxBatchBytes} says, so
     * that they fit the written topics' segment.bytes ({@link SinkPlan#batchLimit}; Kafka refuses a larger batch).
     */
    static SinkRouting of(Map<String, String> options, TreeMap<String, Integer> counts, int batchLimit) {
        Map<String, String> opts = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        opts.putAll(options);
        return new SinkRouting(opts.get("topic"), SinkPlan.defaultPartitions(options), counts,
            RecordBatchV2Encoder.codecId(opts.getOrDefault("compression",
                opts.getOrDefault("kafka.compression.type", "none"))),
            SinkPlan.positive(opts.getOrDefault("kvlog.recordsPerBatch",
                String.valueOf(RecordBatchV2Encoder.DEFAULT_RECORDS_PER_BATCH)), "kvlog.recordsPerBatch"),
            Math.min(batchLimit, SinkPlan.positive(opts.getOrDefault("kvlog.maxBatchBytes",
                String.valueOf(RecordBatchV2Encoder.DEFAULT_MAX_BATCH_BYTES)), "kvlog.maxBatchBytes")),
            SinkPlan.positive(opts.getOrDefault("kvlog.maxOpenBytes",
                String.valueOf(DEFAULT_MAX_OPEN_BYTES)), "kvlog.maxOpenBytes"));
    }
}
