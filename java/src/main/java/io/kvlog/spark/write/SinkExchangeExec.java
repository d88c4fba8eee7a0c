package io.kvlog.spark.write;

import io.kvlog.spark.format.RecordBatchV2Encoder;
import io.kvlog.spark.log.TopicPartition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.spark.Partitioner;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Tuple2;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The JVM sink's exchange: the tasks before it route and encode their rows into record batches per Kafka partition
 * (the work a writer would do), and only whole batches cross to the writer task of each partition, which gives them
 * their offsets ({@link SinkWriter}). Spark's own exchange would move every row one by one (serialized, sorted by
 * target, checksummed, deserialized) before any encoding; this one moves a row per batch of thousands. Each Kafka
 * partition still goes to exactly one writer task: partition {@code p} of a topic named by option lands in task
 * {@code p}; with a topic column, a partition lands in the task its (topic, partition) hashes to.
 *
 * <p>Planned by {@link SinkStrategy} in place of the exchange Spark inserts for the write's required distribution,
 * and linked to its logical side ({@link SinkExchange}), so that adaptive execution, which re-plans a subtree from
 * its logical link, re-plans the exchange as itself.
 */
public final class SinkExchangeExec extends SparkPlan {
    private static final long serialVersionUID = 1L;

    /** One or more whole v2 batches of one partition, their base offsets still to be set by the writer. */
    static final class BatchRow extends GenericInternalRow {
        BatchRow(TopicPartition tp, byte[] batches) {
            super(new Object[] {UTF8String.fromString(tp.topic()), tp.partition(), batches});
        }
    }

    private final SparkPlan child;
    private final SinkRouting routing;
    private final int writerTasks;
    private final Seq<Attribute> output;

    /** Public, and the product's elements are its arguments: Spark copies plan nodes through the constructor. */
    public SinkExchangeExec(SparkPlan child, SinkRouting routing, int writerTasks, Seq<Attribute> output) {
        this.child = child;
        this.routing = routing;
        this.writerTasks = writerTasks;
        this.output = output;
    }

    /** Fresh attributes for the exchange's three columns (topic, partition, batches). */
    static Seq<Attribute> newOutput() {
        List<Attribute> out = new ArrayList<>(CollectionConverters.asJava(DataTypeUtils.toAttributes(OUTPUT)));
        return CollectionConverters.asScala(out).toList();
    }

    static final StructType OUTPUT = new StructType().add("topic", DataTypes.StringType, false)
        .add("partition", DataTypes.IntegerType, false).add("batches", DataTypes.BinaryType, false);

    @Override
    public Seq<Attribute> output() {
        return output;
    }

    @Override
    public Seq<SparkPlan> children() {
        return SinkExchangeNode.children(child);
    }

    @Override
    public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
        return new SinkExchangeExec(newChildren.apply(0), routing, writerTasks, output);
    }

    @Override
    public int productArity() {
        return SinkExchangeNode.ARITY;
    }

    @Override
    public Object productElement(int n) {
        return SinkExchangeNode.element(n, child, routing, writerTasks, output);
    }

    @Override
    public boolean canEqual(Object other) {
        return other instanceof SinkExchangeExec;
    }

    @Override
    public String nodeName() {
        return SinkExchangeNode.NAME;
    }

    @Override
    public RDD<InternalRow> doExecute() {
        SinkRouting r = routing;
        StructType schema = DataTypeUtils.fromAttributes(child.output());
        JavaPairRDD<TopicPartition, byte[]> batches = child.execute().toJavaRDD()
            .mapPartitionsToPair(rows -> new Encoding(r, schema, rows));
        return batches.partitionBy(new WriterTasks(r.topicOption(), writerTasks))
            .map(b -> (InternalRow) new BatchRow(b._1(), b._2())).rdd();
    }

    /** Which writer task a partition's batches go to. */
    static final class WriterTasks extends Partitioner {
        private static final long serialVersionUID = 1L;
        private final String topicOption;
        private final int tasks;

        WriterTasks(String topicOption, int tasks) {
            this.topicOption = topicOption;
            this.tasks = tasks;
        }

        @Override
        public int numPartitions() {
            return tasks;
        }

        @Override
        public int getPartition(Object key) {
            TopicPartition tp = (TopicPartition) key;
            if (topicOption != null) {
                return tp.partition(); // one topic: one task per partition, in order
            }
            // spelled out (a record's hashCode is left to the JVM): String.hashCode is specified, so every
            // executor sends a partition's batches to the same writer task
            return Math.floorMod(31 * tp.topic().hashCode() + tp.partition(), tasks);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof WriterTasks w && w.tasks == tasks && java.util.Objects.equals(w.topicOption,
                topicOption);
        }

        @Override
        public int hashCode() {
            return tasks;
        }
    }

    /** Input bytes (of rows in Spark's binary format) after which the held batches are counted again. */
    static final long CHECK_EVERY_BYTES = 4L << 20;

    /** One task's rows in, its closed batches out (a partition's in the order its rows came). */
    static final class Encoding implements Iterator<Tuple2<TopicPartition, byte[]>> {
        private final Iterator<InternalRow> rows;
        private final SinkRowEncoder encoder;
        private final Map<TopicPartition, RecordBatchV2Encoder> open = new HashMap<>();
        private final ArrayDeque<Tuple2<TopicPartition, byte[]>> ready = new ArrayDeque<>();
        private final SinkRouting routing;
        private int sinceCheck;
        private long bytesSinceCheck;
        private boolean drained;

        Encoding(SinkRouting routing, StructType schema, Iterator<InternalRow> rows) {
            this.rows = rows;
            this.routing = routing;
            this.encoder = new SinkRowEncoder(routing, schema, this::encoderOf);
            TaskContext ctx = TaskContext.get();
            if (ctx != null) {
                // native compressors, on success or failure
                ctx.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) c -> closeAll());
            }
        }

        private RecordBatchV2Encoder encoderOf(TopicPartition tp) {
            RecordBatchV2Encoder e = open.get(tp);
            if (e == null) {
                e = new RecordBatchV2Encoder(routing.codec(), routing.recordsPerBatch(), routing.maxBatchBytes(), 0,
                    (b, off, len) -> ready.add(new Tuple2<>(tp, Arrays.copyOfRange(b, off, off + len))));
                open.put(tp, e);
            }
            return e;
        }

        @Override
        public boolean hasNext() {
            try {
                while (ready.isEmpty() && !drained) {
                    if (rows.hasNext()) {
                        InternalRow row = rows.next();
                        encoder.write(row);
                        if (row instanceof org.apache.spark.sql.catalyst.expressions.UnsafeRow u) {
                            bytesSinceCheck += u.getSizeInBytes();
                        }
                        // every 4096 rows, or sooner when rows are big
                        if (++sinceCheck >= 4096 || bytesSinceCheck >= CHECK_EVERY_BYTES) {
                            sinceCheck = 0;
                            bytesSinceCheck = 0;
                            long held = 0;
                            for (RecordBatchV2Encoder e : open.values()) {
                                held += e.bufferBytes(); // what the task holds: buffers keep their size
                            }
                            if (held > routing.maxOpenBytes()) {
                                flushAll(); // many partitions in one task: bound the batches held open
                            }
                        }
                    } else {
                        flushAll();
                        drained = true;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return !ready.isEmpty();
        }

        @Override
        public Tuple2<TopicPartition, byte[]> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return ready.poll();
        }

        private void flushAll() throws IOException {
            List<RecordBatchV2Encoder> all = new ArrayList<>(open.values());
            for (RecordBatchV2Encoder e : all) {
                e.flush();
            }
            closeAll();
        }

        private void closeAll() {
            for (RecordBatchV2Encoder e : open.values()) {
                e.close();
            }
            open.clear();
            encoder.forgetTargets();
        }
    }
}
