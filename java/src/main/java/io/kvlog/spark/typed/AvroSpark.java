package io.kvlog.spark.typed;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.util.Utf8;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Avro reader schemas as Spark types, and Avro values (as Avro's GenericDatumReader gives them) written into Spark
 * column vectors. The types are those the Python source gives through Arrow ({@code kvlog.spark.typed}): records
 * as structs, enums as strings, {@code ["null", T]} as a nullable T, other unions as structs of
 * {@code member0}, {@code member1}..., decimals as decimal(p, s) (a string past 38 digits), every timestamp as
 * Spark's microsecond timestamp (timestamp_ntz for local ones), date as date, time-of-day as long microseconds,
 * duration as struct&lt;months, days, nanoseconds&gt;, fixed and bytes as binary.
 */
final class AvroSpark {
    static final StructType DURATION = new StructType()
        .add("months", DataTypes.IntegerType).add("days", DataTypes.IntegerType)
        .add("nanoseconds", DataTypes.LongType);

    private AvroSpark() {
    }

    static String logical(Schema s) {
        String lt = s.getProp("logicalType");
        if (lt == null) {
            return null;
        }
        return switch (lt) { // valid on its type, or ignored (as Avro's own parser ignores an invalid one)
            case "date", "time-millis" -> s.getType() == Schema.Type.INT ? lt : null;
            case "time-micros", "timestamp-millis", "timestamp-micros", "timestamp-nanos", "local-timestamp-millis",
                 "local-timestamp-micros", "local-timestamp-nanos" -> s.getType() == Schema.Type.LONG ? lt : null;
            case "uuid" -> s.getType() == Schema.Type.STRING ? lt : null;
            case "duration" -> s.getType() == Schema.Type.FIXED && s.getFixedSize() == 12 ? lt : null;
            case "decimal" -> decimalOk(s) ? lt : null;
            default -> null;
        };
    }

    private static boolean decimalOk(Schema s) {
        if (s.getType() != Schema.Type.BYTES && s.getType() != Schema.Type.FIXED) {
            return false;
        }
        Object p = s.getObjectProp("precision");
        Object sc = s.getObjectProp("scale");
        if (!(p instanceof Integer precision) || precision <= 0 || (sc != null && !(sc instanceof Integer))) {
            return false;
        }
        int scale = sc == null ? 0 : (Integer) sc;
        if (scale < 0 || scale > precision) {
            return false;
        }
        if (s.getType() == Schema.Type.FIXED) {
            int size = s.getFixedSize();
            return size > 0 && precision <= Math.floor(Math.log10(Math.pow(2, 8 * size - 1) - 1));
        }
        return true;
    }

    static int precision(Schema s) {
        return (Integer) s.getObjectProp("precision");
    }

    static int scale(Schema s) {
        Object sc = s.getObjectProp("scale");
        return sc == null ? 0 : (Integer) sc;
    }

    static List<Schema> members(Schema union) {
        List<Schema> out = new ArrayList<>();
        for (Schema b : union.getTypes()) {
            if (b.getType() != Schema.Type.NULL) {
                out.add(b);
            }
        }
        return out;
    }

    /** The T of a union of null and one T, else null. */
    static Schema nullable(Schema union) {
        List<Schema> m = members(union);
        return m.size() == 1 && union.getTypes().size() == 2 ? m.get(0) : null;
    }

    static DataType sparkType(Schema s) {
        return sparkType(s, new HashSet<>());
    }

    private static DataType sparkType(Schema s, Set<String> stack) {
        String lt = logical(s);
        switch (s.getType()) {
            case RECORD -> {
                if (!stack.add(s.getFullName())) {
                    throw new SchemaException("the record " + s.getFullName()
                        + " contains itself: a recursive Avro type has no Spark type");
                }
                StructType t = new StructType();
                for (Schema.Field f : s.getFields()) {
                    t = t.add(f.name(), sparkType(f.schema(), stack), true);
                }
                stack.remove(s.getFullName());
                return t;
            }
            case ENUM, STRING -> {
                return DataTypes.StringType;
            }
            case ARRAY -> {
                return DataTypes.createArrayType(sparkType(s.getElementType(), stack), true);
            }
            case MAP -> {
                return DataTypes.createMapType(DataTypes.StringType, sparkType(s.getValueType(), stack), true);
            }
            case UNION -> {
                Schema one = nullable(s);
                if (one != null) {
                    return sparkType(one, stack);
                }
                List<Schema> m = members(s);
                if (m.isEmpty()) {
                    return DataTypes.NullType;
                }
                if (m.size() == 1 && s.getTypes().size() == 1) {
                    return sparkType(m.get(0), stack);
                }
                StructType t = new StructType();
                for (int i = 0; i < m.size(); i++) {
                    t = t.add("member" + i, sparkType(m.get(i), stack), true);
                }
                return t;
            }
            case FIXED -> {
                if ("decimal".equals(lt)) {
                    return decimal(s);
                }
                return "duration".equals(lt) ? DURATION : DataTypes.BinaryType;
            }
            case BYTES -> {
                return "decimal".equals(lt) ? decimal(s) : DataTypes.BinaryType;
            }
            case INT -> {
                if ("date".equals(lt)) {
                    return DataTypes.DateType;
                }
                return "time-millis".equals(lt) ? DataTypes.LongType : DataTypes.IntegerType;
            }
            case LONG -> {
                if (lt != null && lt.startsWith("local-timestamp")) {
                    return DataTypes.TimestampNTZType;
                }
                return lt != null && lt.startsWith("timestamp") ? DataTypes.TimestampType : DataTypes.LongType;
            }
            case FLOAT -> {
                return DataTypes.FloatType;
            }
            case DOUBLE -> {
                return DataTypes.DoubleType;
            }
            case BOOLEAN -> {
                return DataTypes.BooleanType;
            }
            default -> {
                return DataTypes.NullType;
            }
        }
    }

    private static DataType decimal(Schema s) {
        int p = precision(s);
        return p <= 38 ? DataTypes.createDecimalType(p, scale(s)) : DataTypes.StringType;
    }

    // ------------------------------------------------------------------------------------------- writing
    /**
     * Appends {@code datum} (of reader schema {@code s}) to {@code v}, whose type is {@code t}: the column's Spark
     * type, which may hold fewer struct fields than the schema (Spark's nested column pruning).
     */
    static void write(WritableColumnVector v, DataType t, Schema s, Object datum) {
        if (datum == null) {
            appendNull(v, t);
            return;
        }
        String lt = logical(s);
        switch (s.getType()) {
            case UNION -> {
                Schema one = nullable(s);
                if (one != null) {
                    write(v, t, one, datum);
                    return;
                }
                List<Schema> m = members(s);
                int branch = GenericData.get().resolveUnion(s, datum);
                Schema chosen = s.getTypes().get(branch);
                if (m.size() == 1 && s.getTypes().size() == 1) {
                    write(v, t, chosen, datum);
                    return;
                }
                StructType st = (StructType) t;
                int k = m.indexOf(chosen);
                for (int i = 0; i < st.fields().length; i++) {
                    StructField f = st.fields()[i];
                    int member = Integer.parseInt(f.name().substring("member".length()));
                    WritableColumnVector c = v.getChild(i);
                    if (member == k) {
                        write(c, f.dataType(), chosen, datum);
                    } else {
                        appendNull(c, f.dataType());
                    }
                }
                v.appendStruct(false);
            }
            case RECORD -> {
                IndexedRecord r = (IndexedRecord) datum;
                StructType st = (StructType) t;
                for (int i = 0; i < st.fields().length; i++) {
                    Schema.Field f = s.getField(st.fields()[i].name());
                    write(v.getChild(i), st.fields()[i].dataType(), f.schema(), r.get(f.pos()));
                }
                v.appendStruct(false);
            }
            case ARRAY -> {
                Collection<?> items = (Collection<?>) datum;
                DataType et = ((ArrayType) t).elementType();
                v.appendArray(items.size());
                WritableColumnVector c = v.arrayData();
                for (Object item : items) {
                    write(c, et, s.getElementType(), item);
                }
            }
            case MAP -> {
                Map<?, ?> m = (Map<?, ?>) datum;
                DataType vt = ((MapType) t).valueType();
                v.appendArray(m.size());
                WritableColumnVector keys = v.getChild(0);
                WritableColumnVector values = v.getChild(1);
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    utf8(keys, e.getKey());
                    write(values, vt, s.getValueType(), e.getValue());
                }
            }
            case ENUM, STRING -> utf8(v, datum);
            case FIXED -> {
                byte[] b = ((GenericFixed) datum).bytes();
                if ("decimal".equals(lt)) {
                    decimal(v, t, s, b);
                } else if ("duration".equals(lt)) {
                    ByteBuffer bb = ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    long months = Integer.toUnsignedLong(bb.getInt());
                    long days = Integer.toUnsignedLong(bb.getInt());
                    long millis = Integer.toUnsignedLong(bb.getInt());
                    if (months > Integer.MAX_VALUE || days > Integer.MAX_VALUE) {
                        throw new ValueException(20, "a number outside its column's range");
                    }
                    StructType st = (StructType) t; // (its fields by name: Spark may have pruned some)
                    for (int i = 0; i < st.fields().length; i++) {
                        switch (st.fields()[i].name()) {
                            case "months" -> v.getChild(i).appendInt((int) months);
                            case "days" -> v.getChild(i).appendInt((int) days);
                            default -> v.getChild(i).appendLong(millis * 1_000_000L);
                        }
                    }
                    v.appendStruct(false);
                } else {
                    v.appendByteArray(b, 0, b.length);
                }
            }
            case BYTES -> {
                ByteBuffer bb = ((ByteBuffer) datum).duplicate();
                byte[] b = new byte[bb.remaining()];
                bb.get(b);
                if ("decimal".equals(lt)) {
                    decimal(v, t, s, b);
                } else {
                    v.appendByteArray(b, 0, b.length);
                }
            }
            case INT -> {
                int x = (Integer) datum;
                if ("time-millis".equals(lt)) {
                    v.appendLong(x * 1000L);
                } else {
                    v.appendInt(x);
                }
            }
            case LONG -> {
                long x = (Long) datum;
                if (lt != null && lt.endsWith("-millis") && !lt.startsWith("time-")) {
                    if (x > Long.MAX_VALUE / 1000 || x < Long.MIN_VALUE / 1000) {
                        throw new ValueException(20, "a number outside its column's range");
                    }
                    v.appendLong(x * 1000L);
                } else if (lt != null && lt.endsWith("-nanos")) {
                    v.appendLong(x / 1000L); // (truncated toward zero, as Arrow's unsafe cast to microseconds)
                } else {
                    v.appendLong(x);
                }
            }
            case FLOAT -> v.appendFloat((Float) datum);
            case DOUBLE -> v.appendDouble((Double) datum);
            case BOOLEAN -> v.appendBoolean((Boolean) datum);
            default -> v.appendNull();
        }
    }

    /**
     * The reader's types that hold a value {@link #check} must look at (a decimal, a duration, milliseconds of a
     * timestamp, a time of day), each type mapped to whether it or a type inside it does: the check walks only
     * into those.
     */
    static Map<Schema, Boolean> checked(Schema reader) {
        Map<Schema, Boolean> out = new java.util.IdentityHashMap<>();
        needsCheck(reader, out);
        return out;
    }

    private static boolean needsCheck(Schema s, Map<Schema, Boolean> seen) {
        Boolean known = seen.get(s);
        if (known != null) {
            return known;
        }
        seen.put(s, Boolean.FALSE); // (a recursive type: its own reference adds nothing)
        boolean need = switch (s.getType()) {
            case UNION -> s.getTypes().stream().map(m -> needsCheck(m, seen)).reduce(false, Boolean::logicalOr);
            case RECORD -> s.getFields().stream().map(f -> needsCheck(f.schema(), seen)).reduce(false, Boolean::logicalOr);
            case ARRAY -> needsCheck(s.getElementType(), seen);
            case MAP -> needsCheck(s.getValueType(), seen);
            default -> {
                String lt = logical(s);
                yield lt != null && (lt.equals("decimal") || lt.equals("duration") || lt.startsWith("time-")
                    || (lt.endsWith("-millis") && !lt.startsWith("time-")));
            }
        };
        seen.put(s, need);
        return need;
    }

    /**
     * Throws {@link ValueException} for what {@link #write} cannot write (a decimal past its precision, a duration
     * past int months or days, milliseconds past a long's microseconds), before anything is written: a failed
     * value leaves the columns as they were.
     */
    static void check(DataType t, Schema s, Object datum, Map<Schema, Boolean> needed) {
        if (datum == null || !needed.getOrDefault(s, Boolean.FALSE)) {
            return;
        }
        String lt = logical(s);
        switch (s.getType()) {
            case UNION -> {
                Schema chosen = s.getTypes().get(GenericData.get().resolveUnion(s, datum));
                check(t, chosen, datum, needed); // (the member's type is not needed for the checks)
            }
            case RECORD -> {
                IndexedRecord r = (IndexedRecord) datum;
                for (Schema.Field f : s.getFields()) {
                    check(t, f.schema(), r.get(f.pos()), needed);
                }
            }
            case ARRAY -> {
                for (Object item : (Collection<?>) datum) {
                    check(t, s.getElementType(), item, needed);
                }
            }
            case MAP -> {
                for (Object item : ((Map<?, ?>) datum).values()) {
                    check(t, s.getValueType(), item, needed);
                }
            }
            case FIXED, BYTES -> {
                byte[] b = s.getType() == Schema.Type.FIXED ? ((GenericFixed) datum).bytes() : null;
                if ("decimal".equals(lt)) {
                    if (b == null) {
                        ByteBuffer bb = ((ByteBuffer) datum).duplicate();
                        b = new byte[bb.remaining()];
                        bb.get(b);
                    }
                    BigInteger unscaled = b.length == 0 ? BigInteger.ZERO : new BigInteger(b);
                    if (unscaled.abs().compareTo(BigInteger.TEN.pow(precision(s))) >= 0) {
                        throw new ValueException(7, "a decimal that does not fit its precision");
                    }
                } else if ("duration".equals(lt)) {
                    ByteBuffer bb = ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    if (Integer.toUnsignedLong(bb.getInt()) > Integer.MAX_VALUE
                        || Integer.toUnsignedLong(bb.getInt()) > Integer.MAX_VALUE) {
                        throw new ValueException(20, "a number outside its column's range");
                    }
                }
            }
            case LONG -> {
                long x = (Long) datum;
                if (lt != null && lt.endsWith("-millis") && !lt.startsWith("time-")
                    && (x > Long.MAX_VALUE / 1000 || x < Long.MIN_VALUE / 1000)) {
                    throw new ValueException(20, "a number outside its column's range");
                }
                if ("time-micros".equals(lt) && (x < 0 || x >= 86_400_000_000L)) {
                    throw new ValueException(20, "a number outside its column's range");
                }
            }
            case INT -> {
                int x = (Integer) datum;
                if ("time-millis".equals(lt) && (x < 0 || x >= 86_400_000)) {
                    throw new ValueException(20, "a number outside its column's range");
                }
            }
            default -> {
            }
        }
    }

    private static void utf8(WritableColumnVector v, Object datum) {
        if (datum instanceof Utf8 u) {
            v.appendByteArray(u.getBytes(), 0, u.getByteLength());
        } else {
            byte[] b = datum.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            v.appendByteArray(b, 0, b.length);
        }
    }

    private static void decimal(WritableColumnVector v, DataType t, Schema s, byte[] b) {
        BigInteger unscaled = b.length == 0 ? BigInteger.ZERO : new BigInteger(b);
        int p = precision(s);
        if (unscaled.abs().compareTo(BigInteger.TEN.pow(p)) >= 0) {
            throw new ValueException(7, "a decimal that does not fit its precision");
        }
        BigDecimal d = new BigDecimal(unscaled, scale(s));
        if (t instanceof DecimalType dt) {
            v.appendNotNull();
            v.putDecimal(v.getElementsAppended() - 1, Decimal.apply(d, dt.precision(), dt.scale()), dt.precision());
        } else {
            byte[] text = d.toPlainString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            v.appendByteArray(text, 0, text.length);
        }
    }

    /** A null of any type (a struct's children get slots too, as Spark wants them as long as the struct). */
    static void appendNull(WritableColumnVector v, DataType t) {
        if (t instanceof StructType) {
            v.appendStruct(true);
        } else {
            v.appendNull();
        }
    }
}
