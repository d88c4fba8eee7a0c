package io.kvlog.spark.typed;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataType;

/**
 * Decodes one part (key or value) of records: the schema registry's wire format (magic 0 and a 4-byte id, magic 1
 * and a GUID, or the same prefix in a {@code __value_schema_id}/{@code __key_schema_id} header), the writer schema's
 * state made once per id, the payload read into the column, and the failures: with {@code errors=raise} a
 * {@link DeserializationException} naming the record, else a null value and the reason (and, with deadletter,
 * the raw bytes). As {@code kvlog.schemas.decoding.ColumnDecoder}.
 */
public abstract class PartDecoder {
    /** The columns one part writes: the value (never null), and those the read asked for (null otherwise). */
    public static final class Columns {
        public WritableColumnVector value;
        public WritableColumnVector schemaId;
        public WritableColumnVector error;
        public WritableColumnVector raw;
    }

    final String part;
    final boolean registry;
    final boolean raise;
    final SchemaSource source;
    final DataType type;
    private final Map<Integer, Object> writers = new ConcurrentHashMap<>();
    private final Map<UUID, Integer> guids = new ConcurrentHashMap<>();
    private final Map<Integer, RegisteredSchema> guidSchemas = new ConcurrentHashMap<>();
    private int synthetic = -2;

    PartDecoder(String part, boolean registry, boolean raise, SchemaSource source, DataType type) {
        this.part = part;
        this.registry = registry;
        this.raise = raise;
        this.source = source;
        this.type = type;
    }

    /** The state a writer schema's payloads are read with (a SchemaException: its every payload fails). */
    abstract Object prepare(RegisteredSchema writer);

    /** The state of the bare format (every payload written with the reader schema). */
    abstract Object bare();

    /** Reads one payload into {@code v}, or throws {@link ValueException} leaving {@code v} unchanged. */
    abstract void read(Object state, byte[] b, int off, int len, WritableColumnVector v);

    private Object writer(int id, RegisteredSchema given) {
        return writers.computeIfAbsent(id, x -> {
            try {
                RegisteredSchema w = given != null ? given : source.byId(id);
                return prepare(w);
            } catch (SchemaException e) {
                return e.notFound() ? new Failure(12, "unknown schema id " + id + ": " + e.getMessage())
                    : new Failure(10, "writer schema " + id + " cannot be read: " + e.getMessage());
            }
        });
    }

    /** A writer schema that cannot be read: each of its payloads fails with this. */
    record Failure(int code, String reason) {
    }

    private int guidId(byte[] b, int at) {
        ByteBuffer bb = ByteBuffer.wrap(b, at, 16);
        UUID guid = new UUID(bb.getLong(), bb.getLong());
        return guids.computeIfAbsent(guid, g -> {
            try {
                RegisteredSchema s = source.byGuid(g);
                int id = s.id() >= 0 ? s.id() : nextSynthetic();
                guidSchemas.put(id, s);
                return id;
            } catch (SchemaException e) {
                int id = nextSynthetic();
                writers.put(id, new Failure(12, "unknown schema GUID " + g + ": " + e.getMessage()));
                return id;
            }
        });
    }

    private synchronized int nextSynthetic() {
        return synthetic--;
    }

    /** One record's payload ({@code len} -1: null) and, for the header form, its schema-id header. */
    public void decode(byte[] b, int off, int len, byte[] header, long offset, String topic, int partition,
                       Columns out) {
        if (len < 0) {
            AvroSpark.appendNull(out.value, type);
            appendNull(out.schemaId, out.error, out.raw);
            return;
        }
        int id = -1;
        Object state;
        int start = off;
        int n = len;
        ValueException failure = null;
        if (!registry) {
            state = bare();
        } else {
            byte[] pre = header != null ? header : b;
            int p = header != null ? 0 : off;
            int plen = header != null ? header.length : len;
            if (plen >= 5 && pre[p] == 0) {
                id = ByteBuffer.wrap(pre, p + 1, 4).getInt();
                if (header == null) {
                    start += 5;
                    n -= 5;
                }
                state = writer(id, null);
            } else if (plen >= 17 && pre[p] == 1) {
                id = guidId(pre, p + 1);
                if (header == null) {
                    start += 17;
                    n -= 17;
                }
                state = writer(id, guidSchemas.get(id));
            } else {
                state = null;
                failure = new ValueException(13, "not the schema registry's wire format (the first byte is neither 0 "
                    + "nor 1, or the payload is shorter than its prefix)").at("", 0);
            }
        }
        if (failure == null && state instanceof Failure f) {
            failure = new ValueException(f.code(), f.reason());
        }
        if (failure == null) {
            try {
                read(state, b, start, n, out.value);
            } catch (ValueException e) {
                // positions count the prefix, inline or in a header, as the Python kernels read them joined
                failure = e.shifted(header != null && registry ? header.length : start - off);
            }
        }
        if (failure == null) {
            if (out.schemaId != null) {
                out.schemaId.appendInt(id);
            }
            if (out.error != null) {
                out.error.appendNull();
            }
            if (out.raw != null) {
                out.raw.appendNull();
            }
            return;
        }
        if (raise) {
            throw new DeserializationException(part, failure.reason(), topic, partition, offset,
                registry && id >= 0 ? id : null);
        }
        AvroSpark.appendNull(out.value, type);
        if (out.schemaId != null) {
            if (registry && id >= 0) {
                out.schemaId.appendInt(id);
            } else {
                out.schemaId.appendNull();
            }
        }
        if (out.error != null) {
            byte[] why = failure.reason().getBytes(StandardCharsets.UTF_8);
            out.error.appendByteArray(why, 0, why.length);
        }
        if (out.raw != null) {
            out.raw.appendByteArray(b, off, len);
        }
    }

    private static void appendNull(WritableColumnVector... vs) {
        for (WritableColumnVector v : vs) {
            if (v != null) {
                v.appendNull();
            }
        }
    }
}
