package io.kvlog.spark.write;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;

/**
 * {@code df.write.format("kvlog")} and {@code writeStream.format("kvlog")} on the JVM: executors write whole
 * segments into each partition directory through Hadoop's FileSystem; the driver commits metadata only
 * ({@link SinkCommit}). Rows reach their partition's one writer task through {@link SinkExchangeExec}, planned by
 * {@link SinkStrategy}, batch and stream. The required distribution below is what Spark's own exchange does when
 * that strategy is off ({@code kvlog.sinkExchange=rows}): rows clustered by topic and Kafka partition
 * ({@link KafkaPartitionFunction}, available when the table came through {@code KvlogCatalog}, i.e.
 * {@code df.write}); a stream, whose table Spark loads without a catalog, then gets one task per micro-batch.
 */
public final class KvlogWrite implements Write, RequiresDistributionAndOrdering {
    /** The write builder: append, or overwrite ({@code mode("overwrite")}: the written topics are emptied first). */
    public static final class Builder implements WriteBuilder, SupportsTruncate {
        private final LogicalWriteInfo info;
        private final boolean viaCatalog;
        private boolean overwrite;

        public Builder(LogicalWriteInfo info, boolean viaCatalog) {
            this.info = info;
            this.viaCatalog = viaCatalog;
        }

        @Override
        public WriteBuilder truncate() {
            overwrite = true;
            return this;
        }

        @Override
        public Write build() {
            return new KvlogWrite(info, viaCatalog, overwrite);
        }
    }

    private final LogicalWriteInfo info;
    private final boolean viaCatalog;
    private final boolean overwrite;
    private final Map<String, String> options;
    private java.util.TreeMap<String, Integer> counts;
    private int batchLimit;

    KvlogWrite(LogicalWriteInfo info, boolean viaCatalog, boolean overwrite) {
        this.info = info;
        this.viaCatalog = viaCatalog;
        this.overwrite = overwrite;
        this.options = info.options().asCaseSensitiveMap();
        SinkPlan.checkColumns(options, info.schema());
        if (batchExchange()) {
            SinkStrategy.install(SparkSession.active());
        }
    }

    /** Whether {@link SinkStrategy} replaces Spark's row exchange (option {@code kvlog.sinkExchange}: batches, rows). */
    boolean batchExchange() {
        String v = info.options().getOrDefault("kvlog.sinkExchange", "batches").trim().toLowerCase(java.util.Locale.ROOT);
        if (!v.equals("batches") && !v.equals("rows")) {
            throw new IllegalArgumentException("option kvlog.sinkExchange must be 'batches' or 'rows', got '" + v + "'");
        }
        return v.equals("batches");
    }

    /** How rows are routed and encoded, with the partition counts the writers will check. */
    SinkRouting routing() {
        return SinkRouting.of(options, counts(), batchLimit());
    }

    /** The batch size the written topics' segment.bytes allows ({@link SinkPlan#batchLimit}), read once. */
    private synchronized int batchLimit() {
        if (batchLimit == 0) {
            try {
                batchLimit = SinkPlan.batchLimit(options, conf());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return batchLimit;
    }

    /** Writer tasks of the batch exchange: one per partition of a topic named by option, else Spark's default. */
    int writerTasks() {
        SinkRouting routing = routing();
        return routing.topicOption() != null ? routing.partitionsOf(routing.topicOption())
            : SparkSession.active().sessionState().conf().numShufflePartitions();
    }

    @Override
    public String description() {
        return "kvlog sink";
    }

    @Override
    public Distribution requiredDistribution() {
        List<String> names = List.of(info.schema().fieldNames());
        String topicOption = info.options().get("topic");
        Expression topic = topicOption != null ? Expressions.literal(topicOption) : Expressions.column("topic");
        if (!viaCatalog) {
            return Distributions.clustered(new Expression[] {topic}); // one task: see requiredNumPartitions
        }
        // one topic: a task per Kafka partition (bucketed values, requiredNumPartitions); several: hashed by both
        String fn = topicOption != null ? KafkaPartitionFunction.BUCKET_NAME : KafkaPartitionFunction.NAME;
        Expression value = Expressions.column("value");
        // no key column: every key is null, so the value is hashed, as when it is passed as the key; a key column
        // without nulls needs no value (the three-argument form: no value bytes copied out of every row)
        Expression key = names.contains("key") ? Expressions.column("key") : value;
        int keyAt = names.indexOf("key");
        boolean keyNeverNull = keyAt >= 0 && !info.schema().fields()[keyAt].nullable();
        Expression counts = Expressions.literal(countsSpec());
        Expression route = names.contains("partition")
            ? Expressions.apply(fn, topic, key, Expressions.column("partition"), value, counts)
            : keyNeverNull ? Expressions.apply(fn, topic, key, counts) : Expressions.apply(fn, topic, key, value, counts);
        return topicOption != null ? Distributions.clustered(new Expression[] {route})
            : Distributions.clustered(new Expression[] {topic, route});
    }

    /** Partition counts for the function, as planning will see them (the data directory's, else the option). */
    private String countsSpec() {
        return KafkaPartitionFunction.spec(SinkPlan.defaultPartitions(options), counts());
    }

    /** The partition counts rows are routed by, read once: the distribution and the writers must agree. */
    private synchronized java.util.TreeMap<String, Integer> counts() {
        if (counts == null) {
            try {
                counts = SinkPlan.partitionCounts(options, conf());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return counts;
    }

    @Override
    public int requiredNumPartitions() {
        if (!viaCatalog) {
            return 1;
        }
        String topicOption = info.options().get("topic");
        if (topicOption == null) {
            return 0; // spark.sql.shuffle.partitions
        }
        Integer n = counts().get(topicOption);
        return n != null ? n : SinkPlan.defaultPartitions(options);
    }

    @Override
    public SortOrder[] requiredOrdering() {
        return new SortOrder[0];
    }

    private static org.apache.hadoop.conf.Configuration conf() {
        return SparkSession.active().sessionState().newHadoopConf();
    }

    @Override
    public BatchWrite toBatch() {
        return new BatchWrite() {
            private SinkPlan plan;

            @Override
            public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo physical) {
                plan = planned(null);
                return new SinkWriter.Factory(plan, info.schema());
            }

            @Override
            public boolean useCommitCoordinator() {
                return true;
            }

            @Override
            public void commit(WriterCommitMessage[] messages) {
                try {
                    SinkCommit.commit(plan, messages, -1);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }

            @Override
            public void abort(WriterCommitMessage[] messages) {
                if (plan != null) {
                    SinkCommit.abort(plan, messages);
                }
            }
        };
    }

    @Override
    public StreamingWrite toStreaming() {
        return new Streaming(sinkId());
    }

    /** A micro-batch's write (Spark builds a new write for every micro-batch). */
    final class Streaming implements StreamingWrite {
        private final String sinkId;
        private SinkPlan plan;

        Streaming(String sinkId) {
            this.sinkId = sinkId;
        }

        KvlogWrite write() {
            return KvlogWrite.this;
        }

        @Override
        public StreamingDataWriterFactory createStreamingWriterFactory(PhysicalWriteInfo physical) {
            plan = planned(sinkId);
            return new SinkWriter.Factory(plan, info.schema());
        }

        @Override
        public void commit(long epochId, WriterCommitMessage[] messages) {
            try {
                SinkCommit.commit(plan, messages, epochId);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void abort(long epochId, WriterCommitMessage[] messages) {
            if (plan != null) {
                SinkCommit.abort(plan, messages);
            }
        }
    }

    private SinkPlan planned(String sinkId) {
        try {
            return SinkPlan.plan(options, info.schema(), overwrite, conf(), sinkId, counts());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A streaming sink's stable name: option kvlog.sinkId, else the query's id (stable across restarts). */
    private String sinkId() {
        String given = info.options().get("kvlog.sinkId");
        String raw = given != null && !given.isBlank() ? given : info.queryId();
        StringBuilder b = new StringBuilder();
        for (char c : raw.toCharArray()) {
            b.append(Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-' ? c : '_');
        }
        return b.length() > 120 ? b.substring(b.length() - 120) : b.toString();
    }
}
