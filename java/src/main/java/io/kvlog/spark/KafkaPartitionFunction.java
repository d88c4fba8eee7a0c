package io.kvlog.spark;

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
 * {@code kafka_partition(topic, key, partition, value, counts)}: the Kafka partition a sink row goes to (the
 * explicit partition, else {@link DefaultPartitioner}), so Spark can cluster a write by it. {@code counts} is a
 * literal: {@code =N} (the default count) then {@code ,topic=N} per topic whose partition count is known. The writers route
 * rows with the same {@link SinkRows#partition}, so the function and the tasks always agree.
 */
final class KafkaPartitionFunction implements UnboundFunction {
    static final String NAME = "kafka_partition";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return NAME + "(topic, key, partition, value, counts): the Kafka partition of a kvlog sink row";
    }

    @Override
    public BoundFunction bind(StructType inputType) {
        if (inputType.fields().length != 5) {
            throw new UnsupportedOperationException(NAME + " takes 5 arguments, got " + inputType.fields().length);
        }
        return new Bound(inputType);
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

    static final class Bound implements ScalarFunction<Integer> {
        private static final long serialVersionUID = 1L;
        private final StructType input;
        private transient SinkRows.Column topic;
        private transient SinkRows.Column key;
        private transient SinkRows.Column partition;
        private transient SinkRows.Column value;
        private transient Map<String, Integer> counts;
        private transient UTF8String specSeen;
        private transient UTF8String topicSeen;
        private transient String topicName;
        private transient int partitions;

        Bound(StructType input) {
            this.input = input;
        }

        @Override
        public DataType[] inputTypes() {
            DataType[] out = new DataType[input.fields().length];
            StructField[] f = input.fields();
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
            return NAME;
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
            UTF8String spec = row.getUTF8String(4);
            if (counts == null || !spec.equals(specSeen)) {
                counts = parseSpec(spec.toString());
                specSeen = spec.clone();
                topicSeen = null;
            }
            UTF8String t = topic.utf8(row);
            if (t == null) {
                throw new IllegalArgumentException("the 'topic' column holds a null; every row needs a topic (or set "
                    + "option topic)");
            }
            if (!t.equals(topicSeen)) {
                topicName = t.toString();
                Integer n = counts.get(topicName);
                partitions = n != null ? n : counts.get("");
                topicSeen = t.clone();
            }
            long explicit = partition.isNull(row) ? -1 : partition.longValue(row);
            byte[] k = key.bytes(row);
            return SinkRows.partition(topicName, partitions, k, explicit, k == null ? value.bytes(row) : null);
        }
    }
}
