package io.kvlog.spark.write;

import io.kvlog.spark.format.Bytes;
import io.kvlog.spark.format.RecordBatchV2Encoder;
import io.kvlog.spark.fs.ExclusiveCreate;
import io.kvlog.spark.fs.HadoopConf;
import io.kvlog.spark.fs.LogFileSystems;
import io.kvlog.spark.log.TopicPartition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One writer task of a JVM sink write: it gets each of its partitions' records whole, either as batches encoded
 * before {@link SinkExchangeExec} or as rows Spark clustered by {@link KafkaPartitionFunction} (which it routes by
 * the same rule and encodes), and writes each partition's new segments straight into its directory from the
 * partition's committed end offset. Nothing it writes is read before the driver's commit publishes the new ends;
 * an aborted task removes its files.
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
        private final SinkRouting routing;
        private RecordBatchV2Encoder encoder;

        Target(TopicPartition tp, long start, SegmentWriter segments, SinkRouting routing) {
            this.tp = tp;
            this.start = start;
            this.segments = segments;
            this.routing = routing;
        }

        /** The encoder of rows into this partition's segments (none when only encoded batches come). */
        RecordBatchV2Encoder encoder() {
            if (encoder == null) {
                encoder = new RecordBatchV2Encoder(routing.codec(), routing.recordsPerBatch(), routing.maxBatchBytes(),
                    start, segments);
            }
            return encoder;
        }
    }

    private final SinkPlan plan;
    private final FileSystem fs;
    private final SinkRowEncoder rows;
    private final Map<TopicPartition, Target> targets = new LinkedHashMap<>();
    private Target lastBatchTarget;
    private boolean fromBatches;
    private UTF8String lastBatchTopic;
    private boolean done;

    SinkWriter(SinkPlan plan, StructType schema) {
        this.plan = plan;
        try {
            this.fs = ExclusiveCreate.raw(LogFileSystems.of(plan.rootPath(), HadoopConf.with(plan.conf)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        rows = new SinkRowEncoder(plan.routing(), schema, tp -> target(tp).encoder());
    }

    @Override
    public void write(InternalRow row) throws IOException {
        if (row instanceof SinkExchangeExec.BatchRow b) {
            writeBatches(b);
        } else {
            rows.write(row);
        }
    }

    /**
     * Batches a task before the exchange encoded ({@link SinkExchangeExec}): each gets its offsets here, in the
     * order they arrive, and goes into the partition's segments as it is. The base offset lies outside a v2 batch's
     * checksum, so setting it leaves the batch valid.
     */
    private void writeBatches(SinkExchangeExec.BatchRow row) throws IOException {
        fromBatches = true;
        UTF8String topicBytes = row.getUTF8String(0);
        int p = row.getInt(1);
        Target t = lastBatchTarget;
        if (t == null || t.tp.partition() != p || !topicBytes.equals(lastBatchTopic)) {
            t = lastBatchTarget = target(new TopicPartition(topicBytes.toString(), p));
            lastBatchTopic = topicBytes.clone();
        }
        byte[] b = row.getBinary(2);
        int at = 0;
        while (at < b.length) {
            if (b.length - at < RecordBatchV2Encoder.HEADER_SIZE) {
                throw new IllegalStateException("a staged batch for " + t.tp + " is cut short");
            }
            int len = 12 + Bytes.int32(b, at + 8);
            if (len < RecordBatchV2Encoder.HEADER_SIZE || len > b.length - at) {
                throw new IllegalStateException("a staged batch for " + t.tp + " has a bad length " + len);
            }
            RecordBatchV2Encoder.putInt64(b, at, t.segments.nextOffset());
            t.segments.batch(b, at, len);
            at += len;
        }
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
            // the first attempt of the first stage attempt: no earlier attempt of this task wrote them. A stage
            // Spark resubmits (a fetch failure after an executor was lost) numbers its task attempts from 0 again,
            // while a killed attempt of the earlier stage attempt left its files here
            if (ctx == null || (ctx.attemptNumber() == 0 && ctx.stageAttemptNumber() == 0)) {
                throw new IllegalStateException("partition " + tp + " already has a segment at offset " + start
                    + ", past what is committed: another job is writing it (" + dir + ")");
            }
            SinkPlan.removeUncommitted(fs, dir, start); // an earlier attempt of this task died with its files
        }
        int[] cfg = plan.segmentConfig(tp.topic());
        SegmentWriter segments = new SegmentWriter(fs, dir, start, cfg[0], cfg[1], cfg[2]);
        t = new Target(tp, start, segments, plan.routing());
        targets.put(tp, t);
        return t;
    }

    @Override
    public WriterCommitMessage commit() throws IOException {
        List<SinkCommitMessage.Written> out = new ArrayList<>();
        for (Target t : targets.values()) {
            if (t.encoder != null) {
                t.encoder.flush();
            }
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
        return new SinkCommitMessage(out, fromBatches);
    }

    @Override
    public void abort() throws IOException {
        IOException first = null;
        for (Target t : targets.values()) {
            if (t.encoder != null) {
                t.encoder.close();
            }
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
            if (t.encoder != null) {
                t.encoder.close();
            }
        }
    }
}
