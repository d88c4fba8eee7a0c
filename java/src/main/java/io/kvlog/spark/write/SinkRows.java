package io.kvlog.spark.write;

import io.kvlog.spark.format.RecordBatchV2Encoder;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The sink's input columns, read from Spark's rows as the Python sink reads them from Arrow: {@code value}
 * (required) and {@code key} binary or string, {@code topic} string, {@code partition} an integer,
 * {@code headers} Spark's Kafka sink type ({@code array<struct<key: string, value: binary>>}), {@code timestamp}
 * a timestamp or a number of seconds (null: the time of writing).
 */
final class SinkRows {
    private SinkRows() {
    }

    /**
     * The partition of a row: the explicit one (checked), else {@link DefaultPartitioner}'s ({@code value} is
     * only read for a null key, so a caller may pass null then when the key is not null).
     */
    static int partition(String topic, int partitions, byte[] key, long explicit, byte[] value) {
        if (explicit >= 0 || explicit < -1) {
            if (explicit >= partitions || explicit < 0) {
                throw new IllegalArgumentException("partition " + explicit + " does not exist in topic " + topic
                    + " (" + partitions + " partitions)");
            }
            return (int) explicit;
        }
        return DefaultPartitioner.partition(key, value, partitions);
    }

    /** One input column at an ordinal, read the way its type allows. */
    static final class Column {
        final int ordinal;
        final DataType type;
        final String name;

        private Column(int ordinal, DataType type, String name) {
            this.ordinal = ordinal;
            this.type = type;
            this.name = name;
        }

        static Column of(DataType type, int ordinal, String name) {
            boolean ok = switch (name) {
                case "key", "value" -> type instanceof BinaryType || type instanceof StringType || type instanceof NullType;
                case "topic" -> type instanceof StringType || type instanceof NullType;
                case "partition" -> type instanceof IntegerType || type instanceof LongType || type instanceof ShortType
                    || type instanceof ByteType || type instanceof NullType;
                case "timestamp" -> type instanceof TimestampType || type instanceof TimestampNTZType
                    || type instanceof DoubleType || type instanceof FloatType || type instanceof LongType
                    || type instanceof IntegerType || type instanceof NullType;
                case "headers" -> type instanceof ArrayType a && a.elementType() instanceof StructType s
                    && s.fields().length == 2 && (s.fields()[0].dataType() instanceof StringType)
                    && (s.fields()[1].dataType() instanceof BinaryType || s.fields()[1].dataType() instanceof StringType)
                    || type instanceof NullType;
                default -> true;
            };
            if (!ok) {
                String want = switch (name) {
                    case "key", "value" -> "binary or string";
                    case "topic" -> "a string";
                    case "partition" -> "an int";
                    case "timestamp" -> "a timestamp or a double";
                    default -> "array<struct<key: string, value: binary>>";
                };
                throw new IllegalArgumentException("column '" + name + "' must be " + want + ", not "
                    + type.simpleString());
            }
            return new Column(ordinal, type, name);
        }

        /** Binary or string: bytes an {@code UnsafeRow} keeps behind an offset-and-length word. */
        boolean variableLength() {
            return type instanceof BinaryType || type instanceof StringType;
        }

        boolean isNull(InternalRow row) {
            return type instanceof NullType || row.isNullAt(ordinal);
        }

        byte[] bytes(InternalRow row) {
            if (isNull(row)) {
                return null;
            }
            return type instanceof BinaryType ? row.getBinary(ordinal) : row.getUTF8String(ordinal).getBytes();
        }

        String string(InternalRow row) {
            return isNull(row) ? null : row.getUTF8String(ordinal).toString();
        }

        UTF8String utf8(InternalRow row) {
            return isNull(row) ? null : row.getUTF8String(ordinal);
        }

        long longValue(InternalRow row) {
            if (type instanceof IntegerType) {
                return row.getInt(ordinal);
            }
            if (type instanceof LongType) {
                return row.getLong(ordinal);
            }
            if (type instanceof ShortType) {
                return row.getShort(ordinal);
            }
            return row.getByte(ordinal);
        }

        /** Epoch ms: timestamps floor micros to ms; numbers are seconds (floor(x * 1000)); null: {@code now}. */
        long timestampMs(InternalRow row, long now) {
            if (isNull(row)) {
                return now;
            }
            if (type instanceof TimestampType || type instanceof TimestampNTZType) {
                return Math.floorDiv(row.getLong(ordinal), 1000L);
            }
            double seconds = type instanceof DoubleType ? row.getDouble(ordinal)
                : type instanceof FloatType ? row.getFloat(ordinal)
                : type instanceof LongType ? row.getLong(ordinal) : row.getInt(ordinal);
            return (long) Math.floor(seconds * 1000.0);
        }

        List<RecordBatchV2Encoder.Header> headers(InternalRow row) {
            if (isNull(row)) {
                return null;
            }
            ArrayData a = row.getArray(ordinal);
            int n = a.numElements();
            if (n == 0) {
                return null;
            }
            StructType st = (StructType) ((ArrayType) type).elementType();
            boolean binary = st.fields()[1].dataType() instanceof BinaryType;
            List<RecordBatchV2Encoder.Header> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                InternalRow h = a.getStruct(i, 2);
                if (h.isNullAt(0)) {
                    throw new IllegalArgumentException("a record header has a null key; Kafka header keys are strings");
                }
                byte[] v = h.isNullAt(1) ? null : binary ? h.getBinary(1) : h.getUTF8String(1).getBytes();
                out.add(new RecordBatchV2Encoder.Header(h.getUTF8String(0).toString(), v));
            }
            return out;
        }
    }
}
