package io.kvlog.spark.write;

import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.connector.catalog.functions.ScalarFunction;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The Kafka partition a sink row goes to (the explicit one, else {@link DefaultPartitioner}), so Spark can cluster
 * a write by it. The writers route rows with the same {@link SinkRows#partition}, so the function and the tasks
 * always agree.
 *
 * <ul>
 *   <li>{@code kafka_partition(topic, key, partition, value, counts)}: the partition number; {@code counts} is a
 *       literal, {@code =N} (the default count) then {@code ,topic=N} per topic whose partition count is known.</li>
 *   <li>{@code kafka_partition(topic, key, value, counts)}: the same for input without a partition column (a
 *       write without a key column passes its value as the key: both hash the value), and
 *       {@code kafka_partition(topic, key, counts)} for a key column without nulls (the value is never needed,
 *       so Spark does not copy it out of every row). Served by the magic {@code invoke} methods, which Spark calls
 *       from generated code without building a row per call.</li>
 *   <li>{@code kafka_partition_bucket(...)}, either arity: a number whose Spark hash lands in bucket {@code p} of
 *       the topic's {@code N} ({@link SparkBuckets}). A write of one topic asks for {@code N} shuffle partitions
 *       clustered by it, so each Kafka partition gets a task of its own: Spark's hash of the plain numbers
 *       {@code 0..N-1} collides (0, 1 and 3 of 4 share a bucket), which left one task writing most of the data.</li>
 * </ul>
 */
public final class KafkaPartitionFunction implements UnboundFunction {
    public static final String NAME = "kafka_partition";
    public static final String BUCKET_NAME = "kafka_partition_bucket";
    private final boolean bucketed;

    public KafkaPartitionFunction(boolean bucketed) {
        this.bucketed = bucketed;
    }

    @Override
    public String name() {
        return bucketed ? BUCKET_NAME : NAME;
    }

    @Override
    public String description() {
        return name() + "(topic, key, [partition,] value, counts): the Kafka partition of a kvlog sink row"
            + (bucketed ? ", as a Spark hash bucket" : "");
    }

    @Override
    public BoundFunction bind(StructType inputType) {
        int n = inputType.fields().length;
        if (n == 5) {
            return new RowBound(inputType, bucketed);
        }
        if (n == 4 || n == 3) {
            return new Bound(inputType, bucketed);
        }
        throw new UnsupportedOperationException(name() + " takes 3, 4 or 5 arguments, got " + n);
    }

    /** Partition counts: {@code =N,topic=N,...} (the empty name: topics not listed). */
    static String spec(int defaultPartitions, Map<String, Integer> counts) {
        StringBuilder b = new StringBuilder("=").append(defaultPartitions);
        counts.forEach((t, n) -> b.append(',').append(t).append('=').append(n));
        return b.toString();
    }

    static Map<String, Integer> parseSpec(String spec) {
        Map<String, Integer> out = new HashMap<>();
        for (String part : spec.split(",")) {
            int eq = part.lastIndexOf('=');
            out.put(part.substring(0, eq), Integer.parseInt(part.substring(eq + 1)));
        }
        return out;
    }

    /** What both arities share: the input types, the counts literal parsed once, the topic seen last. */
    abstract static class Base implements ScalarFunction<Integer> {
        private static final long serialVersionUID = 1L;
        final StructType input;
        final boolean bucketed;
        private transient Map<String, Integer> counts;
        private transient UTF8String specSeen;
        private transient UTF8String specRef;
        private transient UTF8String topicSeen;
        private transient UTF8String topicRef;
        transient String topicName;
        transient int partitions;
        private transient int[] bucketKeys;

        Base(StructType input, boolean bucketed) {
            this.input = input;
            this.bucketed = bucketed;
        }

        @Override
        public DataType[] inputTypes() {
            StructField[] f = input.fields();
            DataType[] out = new DataType[f.length];
            for (int i = 0; i < f.length; i++) {
                out[i] = f[i].dataType();
            }
            return out;
        }

        @Override
        public DataType resultType() {
            return DataTypes.IntegerType;
        }

        @Override
        public boolean isResultNullable() {
            return false;
        }

        @Override
        public String name() {
            return bucketed ? BUCKET_NAME : NAME;
        }

        /** Sets {@link #topicName} and {@link #partitions} for this row's topic. */
        final void topic(UTF8String topic, UTF8String spec) {
            // a literal arrives as the same object every row: one reference test; a column value is a new object
            // over the row's bytes, compared by content with a private copy
            if (spec != specRef) {
                if (counts == null || !spec.equals(specSeen)) {
                    counts = parseSpec(spec.toString());
                    specSeen = spec.clone();
                    topicSeen = null;
                    topicRef = null;
                }
                specRef = spec;
            }
            if (topic == null) {
                throw new IllegalArgumentException("the 'topic' column holds a null; every row needs a topic (or set "
                    + "option topic)");
            }
            if (topic != topicRef) {
                if (!topic.equals(topicSeen)) {
                    topicName = topic.toString();
                    Integer n = counts.get(topicName);
                    partitions = n != null ? n : counts.get("");
                    topicSeen = topic.clone();
                }
                topicRef = topic;
            }
        }

        final int result(int partition) {
            if (!bucketed) {
                return partition;
            }
            if (bucketKeys == null || bucketKeys.length != partitions) {
                bucketKeys = SparkBuckets.keysOf(partitions);
            }
            return bucketKeys[partition];
        }
    }

    /**
     * No partition column: Spark calls {@code invoke} from generated code. Four arguments (topic, key, value,
     * counts), or three (topic, key, counts) for a key column that holds no nulls.
     */
    public static final class Bound extends Base {
        private static final long serialVersionUID = 1L;

        Bound(StructType input, boolean bucketed) {
            super(input, bucketed);
            StructField[] f = input.fields();
            SinkRows.Column.of(f[0].dataType(), 0, "topic");
            SinkRows.Column.of(f[1].dataType(), 1, "key");
            if (f.length == 4) {
                SinkRows.Column.of(f[2].dataType(), 2, "value");
            }
        }

        public int invoke(UTF8String topic, byte[] key, UTF8String spec) {
            return route(topic, key, null, spec);
        }

        public int invoke(UTF8String topic, UTF8String key, UTF8String spec) {
            return route(topic, key == null ? null : key.getBytes(), null, spec);
        }

        private int route(UTF8String topic, byte[] key, byte[] value, UTF8String spec) {
            topic(topic, spec);
            return result(SinkRows.partition(topicName, partitions, key, -1, key == null ? value : null));
        }

        public int invoke(UTF8String topic, byte[] key, byte[] value, UTF8String spec) {
            return route(topic, key, value, spec);
        }

        public int invoke(UTF8String topic, UTF8String key, UTF8String value, UTF8String spec) {
            return route(topic, key == null ? null : key.getBytes(), key == null && value != null ? value.getBytes()
                : null, spec);
        }

        public int invoke(UTF8String topic, byte[] key, UTF8String value, UTF8String spec) {
            return route(topic, key, key == null && value != null ? value.getBytes() : null, spec);
        }

        public int invoke(UTF8String topic, UTF8String key, byte[] value, UTF8String spec) {
            return route(topic, key == null ? null : key.getBytes(), value, spec);
        }

        @Override
        public Integer produceResult(InternalRow row) {
            DataType[] t = inputTypes();
            UTF8String topic = row.isNullAt(0) ? null : row.getUTF8String(0);
            if (t.length == 3) {
                return route(topic, bytes(row, 1, t[1]), null, row.getUTF8String(2));
            }
            return route(topic, bytes(row, 1, t[1]), bytes(row, 2, t[2]), row.getUTF8String(3));
        }

        private static byte[] bytes(InternalRow row, int i, DataType type) {
            if (row.isNullAt(i)) {
                return null;
            }
            return type instanceof org.apache.spark.sql.types.StringType ? row.getUTF8String(i).getBytes()
                : row.getBinary(i);
        }
    }

    /** Five arguments, with a partition column (which may hold nulls: no primitive {@code invoke} can take it). */
    static final class RowBound extends Base {
        private static final long serialVersionUID = 1L;
        private transient SinkRows.Column topic;
        private transient SinkRows.Column key;
        private transient SinkRows.Column partition;
        private transient SinkRows.Column value;

        RowBound(StructType input, boolean bucketed) {
            super(input, bucketed);
        }

        @Override
        public Integer produceResult(InternalRow row) {
            if (topic == null) {
                StructField[] f = input.fields();
                topic = SinkRows.Column.of(f[0].dataType(), 0, "topic");
                key = SinkRows.Column.of(f[1].dataType(), 1, "key");
                partition = SinkRows.Column.of(f[2].dataType(), 2, "partition");
                value = SinkRows.Column.of(f[3].dataType(), 3, "value");
            }
            topic(topic.utf8(row), row.getUTF8String(4));
            long explicit = partition.isNull(row) ? -1 : partition.longValue(row);
            byte[] k = key.bytes(row);
            return result(SinkRows.partition(topicName, partitions, k, explicit, k == null ? value.bytes(row) : null));
        }
    }
}
