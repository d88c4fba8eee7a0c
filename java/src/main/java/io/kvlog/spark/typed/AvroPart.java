package io.kvlog.spark.typed;

import java.io.EOFException;
import java.io.IOException;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.AvroTypeException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataType;

/**
 * Avro payloads read as the reader schema by Avro's own reader (its schema resolution: aliases, defaults,
 * promotions, enum defaults, unions), checked first by {@link AvroGuard}, written into Spark columns by
 * {@link AvroSpark}. A writer schema that is a bare {@code bytes} is read as the whole payload, as Confluent's
 * serializers write it.
 */
final class AvroPart extends PartDecoder {
    private final Schema reader;
    private final java.util.Map<Schema, Boolean> checked; // the reader's types whose values' writing can fail
    private BinaryDecoder decoder;
    private Object reuse; // the last value read: its records, arrays and maps are filled again by the next
    private Direct direct; // the reader's compiled walk, made when a writer first is the reader
    private final AvroDirect.Cursor cursor = new AvroDirect.Cursor();

    AvroPart(String part, boolean registry, boolean raise, SchemaSource source, Schema reader, DataType type) {
        super(part, registry, raise, source, type);
        this.reader = reader;
        this.checked = AvroSpark.checked(reader);
    }

    /** A registered Avro schema with the named types of its references. */
    static Schema parse(SchemaSource source, RegisteredSchema s) {
        Schema.Parser parser = new Schema.Parser();
        try {
            if (!s.references().isEmpty()) {
                if (source == null) {
                    throw new SchemaException("an Avro schema with references needs a schema source to read them");
                }
                for (SchemaSource.ReferencedSchema r : source.references(s)) {
                    parser.parse(text(r.schema().text()));
                }
            }
            return parser.parse(text(s.text()));
        } catch (AvroRuntimeException e) {
            throw new SchemaException("an Avro schema that cannot be read: " + e.getMessage());
        }
    }

    private static String text(String t) {
        String x = t.strip();
        return x.startsWith("{") || x.startsWith("[") || x.startsWith("\"") ? t : "\"" + x + "\"";
    }

    private record State(Schema writer, GenericDatumReader<Object> datums) {
    }

    private record Raw(boolean utf8) {
    }

    /** A writer schema that is the reader schema: read by {@link AvroDirect}'s compiled walk. */
    private record Direct(AvroDirect.Node node) {
    }

    @Override
    Object prepare(RegisteredSchema writer) {
        if (!writer.type().equals("AVRO")) {
            throw new SchemaException("it is a " + writer.type() + " schema, and the reader schema is Avro");
        }
        return stateOf(parse(source, writer));
    }

    private Object stateOf(Schema w) {
        if (w.getType() == Schema.Type.BYTES) {
            Schema r = reader.getType() == Schema.Type.UNION && AvroSpark.nullable(reader) != null
                ? AvroSpark.nullable(reader) : reader;
            if ((r.getType() != Schema.Type.BYTES && r.getType() != Schema.Type.STRING)
                || "decimal".equals(AvroSpark.logical(r))) {
                return new Failure(10, "the writer's bytes cannot be read as " + r.getType().getName());
            }
            return new Raw(r.getType() == Schema.Type.STRING);
        }
        if (w.equals(reader)) {
            if (direct == null) {
                direct = new Direct(AvroDirect.compile(reader, type));
            }
            return direct;
        }
        return new State(w, new GenericDatumReader<>(w, reader));
    }

    @Override
    Object bare() {
        return stateOf(reader);
    }

    @Override
    void read(Object state, byte[] b, int off, int len, WritableColumnVector v) {
        if (state instanceof Raw raw) {
            if (raw.utf8() && !Utf8Check.valid(b, off, len)) {
                throw new ValueException(6, "a string that is not UTF-8");
            }
            v.appendByteArray(b, off, len);
            return;
        }
        if (state instanceof Direct d) {
            AvroDirect.Cursor c = cursor;
            c.b = b;
            c.p = off;
            c.end = off + len;
            try {
                d.node().check(c);
            } catch (ValueException e) {
                throw e.at(c.p).shifted(-off);
            }
            if (c.p != off + len) {
                throw new ValueException(8, "bytes left after the value").at("", c.p - off);
            }
            c.p = off;
            d.node().write(c, v);
            return;
        }
        State s = (State) state;
        int used = AvroGuard.check(s.writer(), b, off, len);
        if (used != len) {
            throw new ValueException(8, "bytes left after the value").at("", used);
        }
        Object datum;
        try {
            decoder = DecoderFactory.get().binaryDecoder(b, off, len, decoder);
            datum = s.datums().read(reuse, decoder);
            reuse = datum; // (written into the columns before the next read; nothing keeps it)
        } catch (EOFException e) {
            throw new ValueException(1, "the payload ends inside a value (truncated)");
        } catch (AvroTypeException e) {
            throw new ValueException(10, "the writer schema cannot be read as the reader schema: " + e.getMessage());
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw new ValueException(22, "the payload does not decode: " + e);
        }
        AvroSpark.check(type, reader, datum, checked);
        AvroSpark.write(v, type, reader, datum);
    }
}
