package io.kvlog.spark.write;

import io.kvlog.spark.format.RecordBatchV2Encoder;
import io.kvlog.spark.log.TopicPartition;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Routes sink rows to their Kafka partition (explicit, else Kafka's default partitioner over the key, else over the
 * value) and appends each to that partition's batch encoder. Where the encoders' batches go is the caller's: into
 * segments ({@link SinkWriter}) or into the exchange ({@link SinkExchangeExec}).
 */
final class SinkRowEncoder {
    /** The encoder of one target partition, opened on its first row. */
    interface Targets {
        RecordBatchV2Encoder open(TopicPartition tp) throws IOException;
    }

    private final SinkRouting routing;
    private final Targets targets;
    private final SinkRows.Column topicCol;
    private final SinkRows.Column partitionCol;
    private final SinkRows.Column keyCol;
    private final SinkRows.Column valueCol;
    private final SinkRows.Column headersCol;
    private final SinkRows.Column timestampCol;
    private final boolean inPlace;
    private final Set<String> checkedTopics = new HashSet<>();
    private String countedTopic;
    private int countedPartitions;
    /** Each topic's encoders by partition number: rows before the exchange come in any order of partitions. */
    private final java.util.HashMap<String, RecordBatchV2Encoder[]> byTopic = new java.util.HashMap<>();
    private String lastTargetTopic;
    private RecordBatchV2Encoder[] lastTargets;
    private UTF8String lastTopicBytes;
    private String lastTopic;
    private long now;
    private int sinceClock;

    SinkRowEncoder(SinkRouting routing, StructType schema, Targets targets) {
        this.routing = routing;
        this.targets = targets;
        topicCol = column(schema, "topic");
        partitionCol = column(schema, "partition");
        keyCol = column(schema, "key");
        valueCol = column(schema, "value");
        headersCol = column(schema, "headers");
        timestampCol = column(schema, "timestamp");
        inPlace = (keyCol == null || keyCol.variableLength()) && valueCol.variableLength();
        now = System.currentTimeMillis();
    }

    private static SinkRows.Column column(StructType schema, String name) {
        for (int i = 0; i < schema.fields().length; i++) {
            if (schema.fields()[i].name().equals(name)) {
                return SinkRows.Column.of(schema.fields()[i].dataType(), i, name);
            }
        }
        return null;
    }

    /** Forgets the open encoders (the caller flushed and closed them): the next row of a partition opens anew. */
    void forgetTargets() {
        byTopic.clear();
        lastTargetTopic = null;
        lastTargets = null;
    }

    private String topic(InternalRow row) {
        if (routing.topicOption() != null) {
            return routing.topicOption();
        }
        UTF8String t = topicCol.utf8(row);
        if (t == null) {
            throw new IllegalArgumentException("the 'topic' column holds a null; every row needs a topic (or set "
                + "option topic)");
        }
        if (!t.equals(lastTopicBytes)) {
            lastTopic = t.toString();
            lastTopicBytes = t.clone();
            if (checkedTopics.add(lastTopic)) {
                SinkPlan.checkTopic(lastTopic);
            }
        }
        return lastTopic;
    }

    void write(InternalRow row) throws IOException {
        if (inPlace && row instanceof UnsafeRow u) {
            writeInPlace(u);
            return;
        }
        String topic = topic(row);
        byte[] key = keyCol == null ? null : keyCol.bytes(row);
        byte[] value = valueCol.bytes(row);
        long explicit = partitionCol == null || partitionCol.isNull(row) ? -1 : partitionCol.longValue(row);
        int p = SinkRows.partition(topic, routing.partitionsOf(topic), key, explicit, value);
        target(topic, p).append(key, value, timestamp(row), headersCol == null ? null : headersCol.headers(row));
    }

    /**
     * A row in Spark's binary format (what a scan or a shuffle hands over): key and value are hashed and copied into
     * the batch where they lie, with no array per field. Binary and string fields share the layout: a word of
     * offset (high half, from the row's start) and length (low half).
     */
    private void writeInPlace(UnsafeRow row) throws IOException {
        String topic = topic(row);
        Object base = row.getBaseObject();
        long at = row.getBaseOffset();
        long keyAt = 0;
        int keyLen = -1;
        if (keyCol != null && !row.isNullAt(keyCol.ordinal)) {
            long word = row.getLong(keyCol.ordinal);
            keyAt = at + (word >>> 32);
            keyLen = (int) word;
        }
        long valueAt = 0;
        int valueLen = -1;
        if (!row.isNullAt(valueCol.ordinal)) {
            long word = row.getLong(valueCol.ordinal);
            valueAt = at + (word >>> 32);
            valueLen = (int) word;
        }
        long explicit = partitionCol == null || partitionCol.isNull(row) ? -1 : partitionCol.longValue(row);
        if (topic != countedTopic) { // topic() hands back the same String while the topic stays the same
            countedPartitions = routing.partitionsOf(topic);
            countedTopic = topic;
        }
        int n = countedPartitions;
        int p = explicit != -1 ? SinkRows.partition(topic, n, null, explicit, null)
            : DefaultPartitioner.partition(base, keyAt, keyLen, base, valueAt, valueLen, n);
        target(topic, p).append(base, keyAt, keyLen, base, valueAt, valueLen, timestamp(row),
            headersCol == null ? null : headersCol.headers(row));
    }

    private RecordBatchV2Encoder target(String topic, int p) throws IOException {
        RecordBatchV2Encoder[] all = lastTargets;
        if (topic != lastTargetTopic) { // topic() hands back the same String while the topic stays the same
            all = lastTargets = byTopic.computeIfAbsent(topic, t -> new RecordBatchV2Encoder[routing.partitionsOf(t)]);
            lastTargetTopic = topic;
        }
        if (p < 0 || p >= all.length) {
            throw new IllegalArgumentException("partition " + p + " does not exist in topic " + topic + " ("
                + all.length + " partitions)");
        }
        RecordBatchV2Encoder e = all[p];
        if (e == null) {
            e = all[p] = targets.open(new TopicPartition(topic, p));
        }
        return e;
    }

    private long timestamp(InternalRow row) {
        if (++sinceClock >= 4096) {
            now = System.currentTimeMillis();
            sinceClock = 0;
        }
        return timestampCol == null ? now : timestampCol.timestampMs(row, now);
    }
}
