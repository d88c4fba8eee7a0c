package io.kvlog.spark.read;

import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** Spark's Kafka-source schema, the same as the Python source's {@code kafka_schema()}. */
public final class KafkaSchema {
    static final String KEY = "key";
    static final String VALUE = "value";
    static final String TOPIC = "topic";
    static final String PARTITION = "partition";
    static final String OFFSET = "offset";
    static final String TIMESTAMP = "timestamp";
    static final String TIMESTAMP_TYPE = "timestampType";
    static final String HEADERS = "headers";

    static final StructType HEADER = new StructType(new StructField[] {
        DataTypes.createStructField("key", DataTypes.StringType, true),
        DataTypes.createStructField("value", DataTypes.BinaryType, true),
    });
    static final ArrayType HEADERS_TYPE = DataTypes.createArrayType(HEADER, true);

    private KafkaSchema() {
    }

    public static StructType of(boolean includeHeaders) {
        StructType s = new StructType()
            .add(KEY, DataTypes.BinaryType, true)
            .add(VALUE, DataTypes.BinaryType, true)
            .add(TOPIC, DataTypes.StringType, true)
            .add(PARTITION, DataTypes.IntegerType, true)
            .add(OFFSET, DataTypes.LongType, true)
            .add(TIMESTAMP, DataTypes.TimestampType, true)
            .add(TIMESTAMP_TYPE, DataTypes.IntegerType, true);
        return includeHeaders ? s.add(HEADERS, HEADERS_TYPE, true) : s;
    }
}
