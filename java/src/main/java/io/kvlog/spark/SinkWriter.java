package io.kvlog.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One task of a JVM sink write: routes its rows (the same rule as {@link KafkaPartitionFunction}, by which Spark
 * clustered them, so each partition's rows are all here), encodes them into batches and writes each partition's
 * new segments straight into its directory from the partition's committed end offset. Nothing it writes is read
 * before the driver's commit publishes the new ends; an aborted task removes its files.
 */
final class SinkWriter implements DataWriter<InternalRow> {
    /** Sent to executors; one writer per task. */
    static final class Factory implements DataWriterFactory, StreamingDataWriterFactory {
        private static final long serialVersionUID = 1L;
        private final SinkPlan plan;
        private final StructType schema;

        Factory(SinkPlan plan, StructType schema) {
            this.plan = plan;
            this.schema = schema;
        }

        @Override
        public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
            return new SinkWriter(plan, schema);
        }

        @Override
        public DataWriter<InternalRow> createWriter(int partitionId, long taskId, long epochId) {
            return new SinkWriter(plan, schema);
        }
    }

    private static final class Target {
        final TopicPartition tp;
        final long start;
        final SegmentWriter segments;
        final RecordBatchV2Encoder encoder;

        Target(TopicPartition tp, long start, SegmentWriter segments, RecordBatchV2Encoder encoder) {
            this.tp = tp;
            this.start = start;
            this.segments = segments;
            this.encoder = encoder;
        }
    }

    private final SinkPlan plan;
    private final FileSystem fs;
    private final SinkRows.Column topicCol;
    private final SinkRows.Column partitionCol;
    private final SinkRows.Column keyCol;
    private final SinkRows.Column valueCol;
    private final SinkRows.Column headersCol;
    private final SinkRows.Column timestampCol;
    private final boolean inPlace;
    private String countedTopic;
    private int countedPartitions;
    private final Map<TopicPartition, Target> targets = new LinkedHashMap<>();
    private final Set<String> checkedTopics = new HashSet<>();
    private Target last;
    private UTF8String lastTopicBytes;
    private String lastTopic;
    private long now;
    private int sinceClock;
    private boolean done;

    SinkWriter(SinkPlan plan, StructType schema) {
        this.plan = plan;
        try {
            this.fs = ExclusiveCreate.raw(LogFileSystems.of(plan.rootPath(), HadoopConf.with(plan.conf)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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

    private String topic(InternalRow row) {
        if (plan.topicOption != null) {
            return plan.topicOption;
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

    @Override
    public void write(InternalRow row) throws IOException {
        if (inPlace && row instanceof UnsafeRow u) {
            writeInPlace(u);
            return;
        }
        String topic = topic(row);
        byte[] key = keyCol == null ? null : keyCol.bytes(row);
        byte[] value = valueCol.bytes(row);
        long explicit = partitionCol == null || partitionCol.isNull(row) ? -1 : partitionCol.longValue(row);
        int p = SinkRows.partition(topic, plan.partitionsOf(topic), key, explicit, value);
        target(topic, p).encoder.append(key, value, timestamp(row), headersCol == null ? null : headersCol.headers(row));
    }

    /**
     * A row in Spark's binary format (what a shuffle hands over): key and value are hashed and copied into the
     * batch where they lie, with no array per field. Binary and string fields share the layout: a word of offset
     * (high half, from the row's start) and length (low half).
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
            countedPartitions = plan.partitionsOf(topic);
            countedTopic = topic;
        }
        int n = countedPartitions;
        int p = explicit != -1 ? SinkRows.partition(topic, n, null, explicit, null)
            : DefaultPartitioner.partition(base, keyAt, keyLen, base, valueAt, valueLen, n);
        target(topic, p).encoder.append(base, keyAt, keyLen, base, valueAt, valueLen, timestamp(row),
            headersCol == null ? null : headersCol.headers(row));
    }

    private Target target(String topic, int p) throws IOException {
        Target t = last;
        if (t == null || t.tp.partition() != p || !t.tp.topic().equals(topic)) {
            t = last = target(new TopicPartition(topic, p)); // rows come clustered: usually the same target
        }
        return t;
    }

    private long timestamp(InternalRow row) {
        if (++sinceClock >= 4096) {
            now = System.currentTimeMillis();
            sinceClock = 0;
        }
        return timestampCol == null ? now : timestampCol.timestampMs(row, now);
    }

    private Target target(TopicPartition tp) throws IOException {
        Target t = targets.get(tp);
        if (t != null) {
            return t;
        }
        long start = plan.startOf(tp);
        Path dir = plan.dir(tp);
        if (fs.exists(new Path(dir, SegmentWriter.fileName(start, ".log")))) {
            TaskContext ctx = TaskContext.get();
            if (ctx == null || ctx.attemptNumber() == 0) {
                throw new IllegalStateException("partition " + tp + " already has a segment at offset " + start
                    + ", past what is committed: another job is writing it (" + dir + ")");
            }
            SinkPlan.removeUncommitted(fs, dir, start); // an earlier attempt of this task died with its files
        }
        int[] cfg = plan.segmentConfig(tp.topic());
        SegmentWriter segments = new SegmentWriter(fs, dir, start, cfg[0], cfg[1], cfg[2]);
        t = new Target(tp, start, segments, new RecordBatchV2Encoder(plan.codec, plan.recordsPerBatch,
            plan.maxBatchBytes, start, segments));
        targets.put(tp, t);
        return t;
    }

    @Override
    public WriterCommitMessage commit() throws IOException {
        List<SinkCommitMessage.Written> out = new ArrayList<>();
        for (Target t : targets.values()) {
            t.encoder.flush();
            List<SegmentWriter.Segment> segs = t.segments.finish();
            long[] bases = new long[segs.size()];
            long[] sizes = new long[segs.size()];
            for (int i = 0; i < bases.length; i++) {
                bases[i] = segs.get(i).baseOffset();
                sizes[i] = segs.get(i).bytes();
            }
            out.add(new SinkCommitMessage.Written(t.tp, t.start, t.segments.nextOffset(), bases, sizes));
        }
        done = true;
        return new SinkCommitMessage(out);
    }

    @Override
    public void abort() throws IOException {
        IOException first = null;
        for (Target t : targets.values()) {
            t.encoder.close();
            try {
                t.segments.abort();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        done = true;
        if (first != null) {
            throw first;
        }
    }

    @Override
    public void close() throws IOException {
        if (!done) {
            abort();
        }
        for (Target t : targets.values()) {
            t.encoder.close();
        }
    }
}
