package io.kvlog.spark.read;

import io.kvlog.spark.format.RecordSink;
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

/** Fills reused column vectors for the requested columns only; topic and partition are constants. */
final class ColumnSink implements RecordSink, AutoCloseable {
    private final ColumnVector[] vectors;
    private final ColumnarBatch batch;
    private WritableColumnVector key;
    private WritableColumnVector value;
    private WritableColumnVector offset;
    private WritableColumnVector timestamp;
    private WritableColumnVector timestampType;
    private WritableColumnVector headers;
    private WritableColumnVector headerKeys;
    private WritableColumnVector headerValues;
    private int rows;

    ColumnSink(StructType required, String topic, int partition, int capacity) {
        vectors = new ColumnVector[required.fields().length];
        int i = 0;
        for (StructField f : required.fields()) {
            switch (f.name()) {
                case KafkaSchema.TOPIC -> {
                    ConstantColumnVector c = new ConstantColumnVector(capacity, f.dataType());
                    c.setUtf8String(UTF8String.fromString(topic));
                    vectors[i] = c;
                }
                case KafkaSchema.PARTITION -> {
                    ConstantColumnVector c = new ConstantColumnVector(capacity, f.dataType());
                    c.setInt(partition);
                    vectors[i] = c;
                }
                default -> {
                    OnHeapColumnVector v = new OnHeapColumnVector(capacity, f.dataType());
                    vectors[i] = v;
                    bind(f.name(), v);
                }
            }
            i++;
        }
        batch = new ColumnarBatch(vectors);
    }

    private void bind(String name, WritableColumnVector v) {
        switch (name) {
            case KafkaSchema.KEY -> key = v;
            case KafkaSchema.VALUE -> value = v;
            case KafkaSchema.OFFSET -> offset = v;
            case KafkaSchema.TIMESTAMP -> timestamp = v;
            case KafkaSchema.TIMESTAMP_TYPE -> timestampType = v;
            case KafkaSchema.HEADERS -> {
                headers = v;
                headerKeys = v.arrayData().getChild(0);
                headerValues = v.arrayData().getChild(1);
            }
            default -> throw new IllegalArgumentException("the kvlog schema has no column " + name);
        }
    }

    int rows() {
        return rows;
    }

    void reset() {
        rows = 0;
        for (ColumnVector v : vectors) {
            if (v instanceof WritableColumnVector w) {
                w.reset();
            }
        }
    }

    ColumnarBatch batch() {
        batch.setNumRows(rows);
        return batch;
    }

    @Override
    public boolean needsRecordFields() {
        return key != null || value != null || timestamp != null || headers != null;
    }

    @Override
    public void offsetRun(long first, int count, int type) {
        if (offset != null) {
            offset.reserveAdditional(count);
            int row = offset.getElementsAppended();
            for (int i = 0; i < count; i++) {
                offset.putLong(row + i, first + i);
            }
            offset.addElementsAppended(count);
        }
        if (timestampType != null) {
            timestampType.appendInts(count, type);
        }
        rows += count;
    }

    @Override
    public void record(long off, long timestampMs, int type, byte[] buf, int keyOff, int keyLen, int valueOff,
                       int valueLen) {
        if (key != null) {
            bytes(key, buf, keyOff, keyLen);
        }
        if (value != null) {
            bytes(value, buf, valueOff, valueLen);
        }
        if (offset != null) {
            offset.appendLong(off);
        }
        if (timestamp != null) {
            timestamp.appendLong(timestampMs * 1000L);
        }
        if (timestampType != null) {
            timestampType.appendInt(type);
        }
        rows++;
    }

    private static void bytes(WritableColumnVector v, byte[] buf, int off, int len) {
        if (len < 0) {
            v.appendNull();
        } else {
            v.appendByteArray(buf, off, len);
        }
    }

    @Override
    public void headers(int count) {
        if (headers != null) {
            if (count <= 0) {
                headers.appendNull(); // no headers is null, as in Spark's Kafka source
            } else {
                headers.appendArray(count);
            }
        }
    }

    @Override
    public void header(byte[] buf, int keyOff, int keyLen, int valueOff, int valueLen) {
        if (headers != null) {
            headers.arrayData().appendStruct(false);
            headerKeys.appendByteArray(buf, keyOff, keyLen);
            bytes(headerValues, buf, valueOff, valueLen);
        }
    }

    @Override
    public void close() {
        batch.close();
    }
}
