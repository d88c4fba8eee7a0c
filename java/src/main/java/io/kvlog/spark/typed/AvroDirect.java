package io.kvlog.spark.typed;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Avro payloads written straight into Spark column vectors when the writer schema is the reader schema (a topic's
 * usual case: one version), by a walk compiled once per schema and Spark type. Two passes over a payload: the
 * first checks everything {@link AvroGuard} checks, and the values' ranges, with the same reasons, fields and
 * bytes; the second writes and cannot fail. No Avro record, string or map is made on the way. A writer schema
 * that differs from the reader's goes through Avro's own reader instead (its resolution), then {@link AvroSpark}.
 */
final class AvroDirect {
    private AvroDirect() {
    }

    /** A payload's bytes and the position in them. */
    static final class Cursor {
        byte[] b;
        int p;
        int end;

        long varlong() {
            long raw = 0;
            int start = p;
            for (int shift = 0; ; shift += 7) {
                if (p >= end) {
                    p = start;
                    throw new ValueException(1, "the payload ends inside a value (truncated)");
                }
                int x = b[p++] & 0xff;
                if (shift == 63 && (x & 0x7e) != 0) {
                    p = start;
                    throw new ValueException(2, "a malformed varint (too long, or out of its type's range)");
                }
                raw |= (long) (x & 0x7f) << shift;
                if ((x & 0x80) == 0) {
                    break;
                }
                if (shift == 63) {
                    p = start;
                    throw new ValueException(2, "a malformed varint (too long, or out of its type's range)");
                }
            }
            return (raw >>> 1) ^ -(raw & 1);
        }

        int varint() {
            int start = p;
            long v = varlong();
            if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                p = start;
                throw new ValueException(2, "a malformed varint (too long, or out of its type's range)");
            }
            return (int) v;
        }

        /** A varint of checked bytes (the second pass). */
        long fast() {
            long raw = 0;
            for (int shift = 0; ; shift += 7) {
                int x = b[p++] & 0xff;
                raw |= (long) (x & 0x7f) << shift;
                if ((x & 0x80) == 0) {
                    return (raw >>> 1) ^ -(raw & 1);
                }
            }
        }

        int length() {
            long n = varlong();
            if (n < 0) {
                throw new ValueException(3, "a negative or impossible length or count");
            }
            if (n > end - p) {
                throw new ValueException(1, "the payload ends inside a value (truncated)");
            }
            return (int) n;
        }

        void need(int n) {
            if (n > end - p) {
                throw new ValueException(1, "the payload ends inside a value (truncated)");
            }
        }
    }

    /** One type of the schema: how its value is checked, written (into a column of its Spark type) or passed. */
    abstract static class Node {
        /** Checks the value at the cursor and moves past it, or throws {@link ValueException}. */
        abstract void check(Cursor c);

        /** Writes the (checked) value at the cursor into {@code v}, moving past it. */
        abstract void write(Cursor c, WritableColumnVector v);

        /** Moves past the (checked) value at the cursor (a field Spark pruned). */
        void skip(Cursor c) {
            check(c);
        }

        /** Whether the value takes no bytes (null, an empty record): a count of such items is bounded apart. */
        boolean empty() {
            return false;
        }
    }

    /** The compiled walk of {@code s} written as Spark type {@code t} (null: checked and passed, not written). */
    static Node compile(Schema s, DataType t) {
        String lt = AvroSpark.logical(s);
        return switch (s.getType()) {
            case NULL -> new NullNode(t);
            case BOOLEAN -> new BooleanNode();
            case INT -> new IntNode(lt);
            case LONG -> new LongNode(lt);
            case FLOAT -> new FloatNode();
            case DOUBLE -> new DoubleNode();
            case STRING -> new StringNode();
            case BYTES -> "decimal".equals(lt) && t != null ? new DecimalNode(s, t, -1) : new BytesNode();
            case FIXED -> {
                if ("decimal".equals(lt) && t != null) {
                    yield new DecimalNode(s, t, s.getFixedSize());
                }
                yield "duration".equals(lt) && t != null ? new DurationNode((StructType) t) : new FixedNode(s.getFixedSize());
            }
            case ENUM -> new EnumNode(s.getEnumSymbols());
            case ARRAY -> new ArrayNode(compile(s.getElementType(), t == null ? null : ((ArrayType) t).elementType()));
            case MAP -> new MapNode(compile(s.getValueType(), t == null ? null : ((MapType) t).valueType()));
            case RECORD -> new RecordNode(s, (StructType) t);
            case UNION -> union(s, t);
        };
    }

    private static Node union(Schema s, DataType t) {
        List<Schema> types = s.getTypes();
        List<Schema> members = AvroSpark.members(s);
        Schema one = AvroSpark.nullable(s);
        Node[] branches = new Node[types.size()];
        int[] slots = new int[types.size()];
        StructType st = one == null && members.size() > 1 ? (StructType) t : null;
        for (int i = 0; i < types.size(); i++) {
            Schema b = types.get(i);
            slots[i] = -1;
            if (b.getType() == Schema.Type.NULL) {
                branches[i] = new NullNode(st == null ? t : null); // (a nullable T's null: T's own null)
                slots[i] = -2; // (the union's null)
            } else if (st == null) {
                branches[i] = compile(b, t);
            } else {
                String name = "member" + members.indexOf(b);
                int at = t == null ? -1 : fieldIndex(st, name);
                slots[i] = at;
                branches[i] = compile(b, at < 0 ? null : st.fields()[at].dataType());
            }
        }
        return new UnionNode(branches, slots, st, t);
    }

    private static int fieldIndex(StructType st, String name) {
        StructField[] fs = st.fields();
        for (int i = 0; i < fs.length; i++) {
            if (fs[i].name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    // --------------------------------------------------------------------------------------------- scalars
    static final class NullNode extends Node {
        private final DataType t;

        NullNode(DataType t) {
            this.t = t;
        }

        @Override
        void check(Cursor c) {
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            AvroSpark.appendNull(v, t);
        }

        @Override
        boolean empty() {
            return true;
        }
    }

    static final class BooleanNode extends Node {
        @Override
        void check(Cursor c) {
            c.need(1);
            if ((c.b[c.p] & 0xff) > 1) {
                throw new ValueException(20, "a number outside its column's range");
            }
            c.p++;
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            v.appendBoolean(c.b[c.p++] != 0);
        }
    }

    static final class IntNode extends Node {
        private final boolean timeMillis;

        IntNode(String lt) {
            this.timeMillis = "time-millis".equals(lt);
        }

        @Override
        void check(Cursor c) {
            int x = c.varint();
            if (timeMillis && (x < 0 || x >= 86_400_000)) {
                throw new ValueException(20, "a number outside its column's range");
            }
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            int x = (int) c.fast();
            if (timeMillis) {
                v.appendLong(x * 1000L);
            } else {
                v.appendInt(x); // (a date too: days since the epoch, as Spark's DateType holds it)
            }
        }
    }

    static final class LongNode extends Node {
        private final boolean millis;
        private final boolean nanos;
        private final boolean timeMicros;

        LongNode(String lt) {
            this.millis = lt != null && lt.endsWith("-millis") && !lt.startsWith("time-");
            this.nanos = lt != null && lt.endsWith("-nanos");
            this.timeMicros = "time-micros".equals(lt);
        }

        @Override
        void check(Cursor c) {
            long x = c.varlong();
            if (millis && (x > Long.MAX_VALUE / 1000 || x < Long.MIN_VALUE / 1000)) {
                throw new ValueException(20, "a number outside its column's range");
            }
            if (timeMicros && (x < 0 || x >= 86_400_000_000L)) {
                throw new ValueException(20, "a number outside its column's range");
            }
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            long x = c.fast();
            v.appendLong(millis ? x * 1000L : nanos ? x / 1000L : x);
        }
    }

    static final class FloatNode extends Node {
        @Override
        void check(Cursor c) {
            c.need(4);
            c.p += 4;
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            byte[] b = c.b;
            int p = c.p;
            int bits = (b[p] & 0xff) | (b[p + 1] & 0xff) << 8 | (b[p + 2] & 0xff) << 16 | (b[p + 3] & 0xff) << 24;
            c.p = p + 4;
            v.appendFloat(Float.intBitsToFloat(bits));
        }
    }

    static final class DoubleNode extends Node {
        @Override
        void check(Cursor c) {
            c.need(8);
            c.p += 8;
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            byte[] b = c.b;
            int p = c.p;
            long bits = 0;
            for (int i = 7; i >= 0; i--) {
                bits = bits << 8 | (b[p + i] & 0xff);
            }
            c.p = p + 8;
            v.appendDouble(Double.longBitsToDouble(bits));
        }
    }

    static final class StringNode extends Node {
        @Override
        void check(Cursor c) {
            int n = c.length();
            if (!Utf8Check.valid(c.b, c.p, n)) {
                throw new ValueException(6, "a string that is not UTF-8");
            }
            c.p += n;
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            int n = (int) c.fast();
            v.appendByteArray(c.b, c.p, n);
            c.p += n;
        }
    }

    static final class BytesNode extends Node {
        @Override
        void check(Cursor c) {
            int n = c.length(); // (read first: c.p moves past the length)
            c.p += n;
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            int n = (int) c.fast();
            v.appendByteArray(c.b, c.p, n);
            c.p += n;
        }
    }

    static final class FixedNode extends Node {
        private final int size;

        FixedNode(int size) {
            this.size = size;
        }

        @Override
        void check(Cursor c) {
            c.need(size);
            c.p += size;
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            v.appendByteArray(c.b, c.p, size);
            c.p += size;
        }

        @Override
        boolean empty() {
            return size == 0;
        }
    }

    static final class EnumNode extends Node {
        private final byte[][] symbols;

        EnumNode(List<String> names) {
            symbols = new byte[names.size()][];
            for (int i = 0; i < symbols.length; i++) {
                symbols[i] = names.get(i).getBytes(StandardCharsets.UTF_8);
            }
        }

        @Override
        void check(Cursor c) {
            long i = c.varlong();
            if (i < 0 || i >= symbols.length) {
                throw new ValueException(5, "an enum value with no symbol the reader knows");
            }
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            byte[] s = symbols[(int) c.fast()];
            v.appendByteArray(s, 0, s.length);
        }
    }

    /** A decimal of bytes ({@code size} -1) or a fixed: checked against 10^precision, written as Spark holds it. */
    static final class DecimalNode extends Node {
        private final int size;
        private final int precision;
        private final int scale;
        private final BigInteger bound;
        private final long longBound; // 10^precision when it fits a long, else -1
        private final DecimalType type; // null: a string (past Spark's 38 digits)

        DecimalNode(Schema s, DataType t, int size) {
            this.size = size;
            this.precision = AvroSpark.precision(s);
            this.scale = AvroSpark.scale(s);
            this.bound = BigInteger.TEN.pow(precision);
            this.longBound = precision <= 18 ? bound.longValueExact() : -1;
            this.type = t instanceof DecimalType dt ? dt : null;
        }

        /** The unscaled value of {@code n} big-endian two's-complement bytes when they fit a long, else null. */
        private static boolean fitsLong(byte[] b, int p, int n) {
            if (n <= 8) {
                return true;
            }
            byte sign = b[p] < 0 ? (byte) -1 : 0;
            for (int i = 0; i < n - 8; i++) {
                if (b[p + i] != sign) {
                    return false;
                }
            }
            return (b[p + n - 8] < 0) == (sign < 0);
        }

        private static long toLong(byte[] b, int p, int n) {
            long x = n == 0 ? 0 : b[p]; // (sign-extended)
            for (int i = 1; i < n; i++) {
                x = x << 8 | (b[p + i] & 0xff);
            }
            return x;
        }

        @Override
        void check(Cursor c) {
            int n = size < 0 ? c.length() : size;
            c.need(n);
            int at = c.p;
            c.p += n;
            boolean over;
            if (longBound > 0 && fitsLong(c.b, at, n)) {
                long x = toLong(c.b, at, n);
                over = x >= longBound || x <= -longBound;
            } else {
                BigInteger u = n == 0 ? BigInteger.ZERO : new BigInteger(c.b, at, n);
                over = u.abs().compareTo(bound) >= 0;
            }
            if (over) {
                throw new ValueException(7, "a decimal that does not fit its precision");
            }
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            int n = size < 0 ? (int) c.fast() : size;
            int at = c.p;
            c.p += n;
            if (type != null && type.precision() <= 18 && fitsLong(c.b, at, n)) {
                long x = toLong(c.b, at, n);
                if (type.precision() <= 9) {
                    v.appendInt((int) x); // (Spark keeps decimals of up to 9 digits as ints, up to 18 as longs)
                } else {
                    v.appendLong(x);
                }
                return;
            }
            BigDecimal d = new BigDecimal(n == 0 ? BigInteger.ZERO : new BigInteger(c.b, at, n), scale);
            if (type != null) {
                v.appendNotNull();
                v.putDecimal(v.getElementsAppended() - 1, Decimal.apply(d, type.precision(), type.scale()),
                    type.precision());
            } else {
                byte[] text = d.toPlainString().getBytes(StandardCharsets.UTF_8);
                v.appendByteArray(text, 0, text.length);
            }
        }
    }

    /** Avro's duration: three little-endian uint32s, written as struct&lt;months, days, nanoseconds&gt;. */
    static final class DurationNode extends Node {
        private final int[] parts; // per Spark field: 0 months, 1 days, 2 nanoseconds (Spark may prune some)

        DurationNode(StructType st) {
            parts = new int[st.fields().length];
            for (int i = 0; i < parts.length; i++) {
                parts[i] = switch (st.fields()[i].name()) {
                    case "months" -> 0;
                    case "days" -> 1;
                    default -> 2;
                };
            }
        }

        private static long u32(byte[] b, int p) {
            return (b[p] & 0xffL) | (b[p + 1] & 0xffL) << 8 | (b[p + 2] & 0xffL) << 16 | (b[p + 3] & 0xffL) << 24;
        }

        @Override
        void check(Cursor c) {
            c.need(12);
            if (u32(c.b, c.p) > Integer.MAX_VALUE || u32(c.b, c.p + 4) > Integer.MAX_VALUE) {
                throw new ValueException(20, "a number outside its column's range");
            }
            c.p += 12;
        }

        @Override
        void skip(Cursor c) {
            c.need(12);
            c.p += 12;
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            long[] x = {u32(c.b, c.p), u32(c.b, c.p + 4), u32(c.b, c.p + 8)};
            c.p += 12;
            for (int i = 0; i < parts.length; i++) {
                if (parts[i] == 2) {
                    v.getChild(i).appendLong(x[2] * 1_000_000L);
                } else {
                    v.getChild(i).appendInt((int) x[parts[i]]);
                }
            }
            v.appendStruct(false);
        }
    }

    // ----------------------------------------------------------------------------------------- containers
    static final class RecordNode extends Node {
        private final String[] names;
        private final Node[] fields;
        private final int[] columns; // per writer field: its Spark field, or -1 (pruned)
        private final boolean empty;

        RecordNode(Schema s, StructType st) {
            List<Schema.Field> fs = s.getFields();
            names = new String[fs.size()];
            fields = new Node[fs.size()];
            columns = new int[fs.size()];
            boolean none = true;
            for (int i = 0; i < fs.size(); i++) {
                Schema.Field f = fs.get(i);
                names[i] = f.name();
                columns[i] = st == null ? -1 : fieldIndex(st, f.name());
                fields[i] = compile(f.schema(), columns[i] < 0 ? null : st.fields()[columns[i]].dataType());
                none &= fields[i].empty();
            }
            empty = none;
        }

        @Override
        void check(Cursor c) {
            for (int i = 0; i < fields.length; i++) {
                try {
                    fields[i].check(c); // (a pruned field's too: it was compiled without its range checks)
                } catch (ValueException e) {
                    throw e.at(c.p).within(names[i]);
                }
            }
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            for (int i = 0; i < fields.length; i++) {
                if (columns[i] < 0) {
                    fields[i].skip(c);
                } else {
                    fields[i].write(c, v.getChild(columns[i]));
                }
            }
            v.appendStruct(false);
        }

        @Override
        boolean empty() {
            return empty;
        }
    }

    static final class ArrayNode extends Node {
        private final Node item;

        ArrayNode(Node item) {
            this.item = item;
        }

        @Override
        void check(Cursor c) {
            long seen = 0;
            boolean none = item.empty();
            for (;;) {
                long count = blockCount(c);
                if (count == 0) {
                    return;
                }
                if (none) {
                    seen += count;
                    if (seen > AvroGuard.MAX_EMPTY_ITEMS) {
                        throw new ValueException(21, "a collection of empty items past the decoder's limit");
                    }
                } else if (count > c.end - c.p) {
                    throw new ValueException(1, "the payload ends inside a value (truncated)");
                }
                for (long k = 0; k < count; k++) {
                    try {
                        item.check(c);
                    } catch (ValueException e) {
                        throw e.at(c.p).within("[]");
                    }
                }
            }
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            WritableColumnVector data = v.arrayData();
            int start = data.getElementsAppended();
            int row = v.appendArray(0);
            for (;;) {
                long count = c.fast();
                if (count == 0) {
                    break;
                }
                if (count < 0) {
                    count = -count;
                    c.fast();
                }
                for (long k = 0; k < count; k++) {
                    item.write(c, data);
                }
            }
            v.putArray(row, start, data.getElementsAppended() - start);
        }

        @Override
        void skip(Cursor c) {
            for (;;) {
                long count = c.fast();
                if (count == 0) {
                    return;
                }
                if (count < 0) {
                    int size = (int) c.fast(); // (a block with its size: passed whole)
                    c.p += size;
                    continue;
                }
                for (long k = 0; k < count; k++) {
                    item.skip(c);
                }
            }
        }
    }

    /** A block's item count (its byte size read and checked when it is given). */
    static long blockCount(Cursor c) {
        long count = c.varlong();
        if (count < 0) {
            if (count == Long.MIN_VALUE) {
                throw new ValueException(3, "a negative or impossible length or count");
            }
            count = -count;
            long size = c.varlong();
            if (size < 0 || size > c.end - c.p) {
                throw new ValueException(size < 0 ? 3 : 1, size < 0
                    ? "a negative or impossible length or count" : "the payload ends inside a value (truncated)");
            }
        }
        return count;
    }

    static final class MapNode extends Node {
        private final Node value;

        MapNode(Node value) {
            this.value = value;
        }

        @Override
        void check(Cursor c) {
            List<int[]> keys = null; // (offset, length) of each key, to refuse one given twice
            int[] first = null;
            for (;;) {
                long count = blockCount(c);
                if (count == 0) {
                    return;
                }
                if (count > c.end - c.p) {
                    throw new ValueException(1, "the payload ends inside a value (truncated)");
                }
                for (long k = 0; k < count; k++) {
                    int n = c.length();
                    int at = c.p;
                    c.p += n;
                    if (!Utf8Check.valid(c.b, at, n)) {
                        c.p = at;
                        throw new ValueException(6, "a string that is not UTF-8");
                    }
                    int[] key = {at, n};
                    if (first == null) {
                        first = key;
                    } else {
                        if (keys == null) {
                            keys = new ArrayList<>();
                            keys.add(first);
                        }
                        for (int[] o : keys) {
                            if (o[1] == n && java.util.Arrays.equals(c.b, o[0], o[0] + n, c.b, at, at + n)) {
                                throw new ValueException(19, "a key given twice in one object or map");
                            }
                        }
                        keys.add(key);
                    }
                    try {
                        value.check(c);
                    } catch (ValueException e) {
                        throw e.at(c.p).within("{}");
                    }
                }
            }
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            WritableColumnVector keys = v.getChild(0);
            WritableColumnVector values = v.getChild(1);
            int start = keys.getElementsAppended();
            int row = v.appendArray(0);
            for (;;) {
                long count = c.fast();
                if (count == 0) {
                    break;
                }
                if (count < 0) {
                    count = -count;
                    c.fast();
                }
                for (long k = 0; k < count; k++) {
                    int n = (int) c.fast();
                    keys.appendByteArray(c.b, c.p, n);
                    c.p += n;
                    value.write(c, values);
                }
            }
            v.putArray(row, start, keys.getElementsAppended() - start);
        }

        @Override
        void skip(Cursor c) {
            for (;;) {
                long count = c.fast();
                if (count == 0) {
                    return;
                }
                if (count < 0) {
                    int size = (int) c.fast();
                    c.p += size;
                    continue;
                }
                for (long k = 0; k < count; k++) {
                    int n = (int) c.fast();
                    c.p += n;
                    value.skip(c);
                }
            }
        }
    }

    /**
     * A union: {@code ["null", T]} as a nullable T, a lone member as itself, others as a struct of
     * {@code member0}, {@code member1}... (the members without null, in order; Spark may prune some).
     */
    static final class UnionNode extends Node {
        private final Node[] branches;
        private final int[] slots; // per branch: its struct field, -1 pruned, -2 the union's null
        private final StructType struct; // null: not a struct of members
        private final DataType type;

        UnionNode(Node[] branches, int[] slots, StructType struct, DataType type) {
            this.branches = branches;
            this.slots = slots;
            this.struct = struct;
            this.type = type;
        }

        @Override
        void check(Cursor c) {
            long i = c.varlong();
            if (i < 0 || i >= branches.length) {
                throw new ValueException(4, "a union branch index out of range");
            }
            branches[(int) i].check(c);
        }

        @Override
        void write(Cursor c, WritableColumnVector v) {
            int i = (int) c.fast();
            if (struct == null) {
                branches[i].write(c, v); // (a null branch appends the nullable T's null)
                return;
            }
            int slot = slots[i];
            if (slot == -2) {
                AvroSpark.appendNull(v, type);
                return;
            }
            StructField[] fs = struct.fields();
            for (int k = 0; k < fs.length; k++) {
                if (k == slot) {
                    branches[i].write(c, v.getChild(k));
                } else {
                    AvroSpark.appendNull(v.getChild(k), fs[k].dataType());
                }
            }
            if (slot < 0) {
                branches[i].skip(c);
            }
            v.appendStruct(false);
        }

        @Override
        void skip(Cursor c) {
            branches[(int) c.fast()].skip(c);
        }
    }
}
