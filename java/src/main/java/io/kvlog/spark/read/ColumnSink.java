package io.kvlog.spark.read;

import io.kvlog.spark.format.RecordSink;
import io.kvlog.spark.typed.PartDecoder;
import io.kvlog.spark.typed.TypedRead;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Fills reused column vectors for the requested columns only; topic and partition are constants. A typed key or
 * value ({@link TypedRead}) is decoded into its column by its {@link PartDecoder}, once the record's headers are
 * known (the wire format's schema id may travel in one).
 */
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
    private final Typed[] typed = new Typed[2]; // key, value: null when bytes or not read
    private final String topic;
    private final int partition;

    /** One typed part: its decoder and columns, and the record waiting for its headers. */
    private static final class Typed {
        final String part;
        final PartDecoder decoder;
        final PartDecoder.Columns columns = new PartDecoder.Columns();
        WritableColumnVector scratch; // the value column when the read asks only for its id, error or bytes
        boolean pending;
        long offset;
        byte[] payload;
        byte[] header;

        Typed(String part, PartDecoder decoder) {
            this.part = part;
            this.decoder = decoder;
        }
    }

    ColumnSink(StructType required, String topic, int partition, int capacity) {
        this(required, topic, partition, capacity, null);
    }

    ColumnSink(StructType required, String topic, int partition, int capacity, TypedRead types) {
        this.topic = topic;
        this.partition = partition;
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
                    if (types == null || !bindTyped(types, f.name(), v, capacity)) {
                        bind(f.name(), v);
                    }
                }
            }
            i++;
        }
        for (int k = 0; k < 2; k++) {
            Typed t = typed[k];
            if (t != null && t.columns.value == null) { // the value itself not read: decoded into a scratch column
                t.scratch = new OnHeapColumnVector(capacity, types.type(topic, t.part));
                t.columns.value = t.scratch;
            }
        }
        batch = new ColumnarBatch(vectors);
    }

    /** Binds a typed part's column (key, value, or one of the columns typing adds); false: not a typed one. */
    private boolean bindTyped(TypedRead types, String name, WritableColumnVector v, int capacity) {
        String part = name.startsWith("key") ? "key" : name.startsWith("value") ? "value" : null;
        if (part == null || !types.typed(part)) {
            return false;
        }
        int k = part.equals("key") ? 0 : 1;
        String rest = name.substring(part.length());
        if (typed[k] == null) {
            DataType t = rest.isEmpty() ? v.dataType() : types.type(topic, part);
            typed[k] = new Typed(part, types.decoder(topic, part, t));
        }
        PartDecoder.Columns c = typed[k].columns;
        switch (rest) {
            case "" -> c.value = v;
            case "SchemaId" -> c.schemaId = v;
            case "Error" -> c.error = v;
            case "Bytes" -> c.raw = v;
            default -> {
                return false;
            }
        }
        return true;
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
        for (Typed t : typed) {
            if (t != null && t.scratch != null) {
                t.scratch.reset();
            }
        }
    }

    ColumnarBatch batch() {
        flushTyped();
        batch.setNumRows(rows);
        return batch;
    }

    @Override
    public boolean needsRecordFields() {
        return key != null || value != null || timestamp != null || headers != null || typed[0] != null
            || typed[1] != null;
    }

    /** Decodes the typed parts of the record whose headers are now known. */
    private void flushTyped() {
        for (Typed t : typed) {
            if (t != null && t.pending) {
                t.pending = false;
                byte[] p = t.payload;
                t.decoder.decode(p, 0, p == null ? -1 : p.length, t.header, t.offset, topic, partition, t.columns);
            }
        }
    }

    private void typedRecord(long off, byte[] buf, int keyOff, int keyLen, int valueOff, int valueLen) {
        flushTyped();
        for (Typed t : typed) {
            if (t == null) {
                continue;
            }
            boolean k = t.part.equals("key");
            int o = k ? keyOff : valueOff;
            int n = k ? keyLen : valueLen;
            t.pending = true; // (copied: the batch's buffer is reused before the headers' end is known)
            t.offset = off;
            t.payload = n < 0 ? null : Arrays.copyOfRange(buf, o, o + n);
            t.header = null;
        }
    }

    private void typedHeader(byte[] buf, int keyOff, int keyLen, int valueOff, int valueLen) {
        for (Typed t : typed) {
            if (t == null || !t.pending) {
                continue;
            }
            byte[] name = ("__" + t.part + "_schema_id").getBytes(StandardCharsets.UTF_8);
            if (keyLen == name.length && Arrays.equals(buf, keyOff, keyOff + keyLen, name, 0, name.length)) {
                t.header = valueLen < 0 ? null : Arrays.copyOfRange(buf, valueOff, valueOff + valueLen); // last wins
            }
        }
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
        if (typed[0] != null || typed[1] != null) {
            typedRecord(off, buf, keyOff, keyLen, valueOff, valueLen);
        }
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
        if (typed[0] != null || typed[1] != null) {
            typedHeader(buf, keyOff, keyLen, valueOff, valueLen);
        }
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
