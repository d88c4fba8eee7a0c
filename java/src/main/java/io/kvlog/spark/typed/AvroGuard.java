package io.kvlog.spark.typed;

import org.apache.avro.Schema;

/**
 * A walk over an Avro payload with its writer schema, before Avro's reader decodes it: every length and count is
 * checked against the bytes left (a count of items that take no bytes against a limit), so that damaged bytes end
 * in the reason the Python kernels give ({@code csrc/avro.c}), never in a huge allocation inside Avro's reader.
 */
final class AvroGuard {
    static final long MAX_EMPTY_ITEMS = 1L << 20;
    private final byte[] b;
    private int p;
    private final int end;

    private AvroGuard(byte[] b, int off, int len) {
        this.b = b;
        this.p = off;
        this.end = off + len;
    }

    /**
     * Checks a payload; returns the bytes it takes, or throws {@link ValueException} placed at the writer's field
     * and the byte (counted from {@code off}) where the Python kernels stop.
     */
    static int check(Schema writer, byte[] b, int off, int len) {
        AvroGuard g = new AvroGuard(b, off, len);
        try {
            g.walk(writer, 0);
        } catch (ValueException e) {
            throw e.at(g.p).shifted(-off); // (placed where the walk stopped, counted from the value's start)
        }
        return g.p - off;
    }

    private long varlong() {
        long raw = 0;
        int start = p;
        for (int shift = 0; ; shift += 7) {
            if (p >= end) {
                p = start; // (a varint that fails is read from its first byte, as the kernels report it)
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

    private void skip(long n) {
        if (n < 0) {
            throw new ValueException(3, "a negative or impossible length or count");
        }
        if (n > end - p) {
            throw new ValueException(1, "the payload ends inside a value (truncated)");
        }
        p += (int) n;
    }

    private static boolean empty(Schema s, int depth) {
        return switch (s.getType()) {
            case NULL -> true;
            case FIXED -> s.getFixedSize() == 0;
            case RECORD -> depth < 64 && s.getFields().stream().allMatch(f -> empty(f.schema(), depth + 1));
            default -> false;
        };
    }

    /** Walks one value; a failure inside it is placed where the walk stopped, and named from the inside out. */
    private void walk(Schema s, int depth) {
        if (depth > 128) {
            throw new ValueException(14, "nested deeper than the decoder allows");
        }
        switch (s.getType()) {
            case NULL -> {
            }
            case BOOLEAN -> {
                if (p >= end) {
                    throw new ValueException(1, "the payload ends inside a value (truncated)");
                }
                if ((b[p] & 0xff) > 1) {
                    throw new ValueException(20, "a number outside its column's range");
                }
                p++;
            }
            case INT -> {
                int at = p;
                long v = varlong();
                if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                    p = at;
                    throw new ValueException(2, "a malformed varint (too long, or out of its type's range)");
                }
            }
            case LONG -> varlong();
            case FLOAT -> skip(4);
            case DOUBLE -> skip(8);
            case BYTES -> skip(varlong());
            case STRING -> {
                long n = varlong();
                int at = p;
                skip(n);
                if (!Utf8Check.valid(b, at, (int) n)) {
                    p = at;
                    throw new ValueException(6, "a string that is not UTF-8");
                }
            }
            case FIXED -> skip(s.getFixedSize());
            case ENUM -> {
                long i = varlong();
                if (i < 0 || i >= s.getEnumSymbols().size()) {
                    throw new ValueException(5, "an enum value with no symbol the reader knows");
                }
            }
            case UNION -> {
                long i = varlong();
                if (i < 0 || i >= s.getTypes().size()) {
                    throw new ValueException(4, "a union branch index out of range");
                }
                walk(s.getTypes().get((int) i), depth + 1);
            }
            case RECORD -> {
                for (Schema.Field f : s.getFields()) {
                    try {
                        walk(f.schema(), depth + 1);
                    } catch (ValueException e) {
                        throw e.at(p).within(f.name());
                    }
                }
            }
            case ARRAY, MAP -> {
                boolean map = s.getType() == Schema.Type.MAP;
                Schema item = map ? s.getValueType() : s.getElementType();
                boolean none = !map && empty(item, 0);
                long seen = 0;
                java.util.Set<java.nio.ByteBuffer> keys = map ? new java.util.HashSet<>() : null;
                for (;;) {
                    long count = varlong();
                    if (count == 0) {
                        break;
                    }
                    if (count < 0) {
                        if (count == Long.MIN_VALUE) {
                            throw new ValueException(3, "a negative or impossible length or count");
                        }
                        count = -count;
                        long size = varlong();
                        if (size < 0 || size > end - p) {
                            throw new ValueException(size < 0 ? 3 : 1, size < 0
                                ? "a negative or impossible length or count" : "the payload ends inside a value (truncated)");
                        }
                    }
                    if (none) {
                        seen += count;
                        if (seen > MAX_EMPTY_ITEMS) {
                            throw new ValueException(21, "a collection of empty items past the decoder's limit");
                        }
                    } else if (count > end - p) {
                        throw new ValueException(1, "the payload ends inside a value (truncated)");
                    }
                    for (long k = 0; k < count; k++) {
                        if (map) {
                            long n = varlong();
                            int at = p;
                            skip(n);
                            if (!Utf8Check.valid(b, at, (int) n)) {
                                throw new ValueException(6, "a string that is not UTF-8");
                            }
                            if (!keys.add(java.nio.ByteBuffer.wrap(b, at, (int) n))) { // (readers differ on the winner)
                                throw new ValueException(19, "a key given twice in one object or map");
                            }
                        }
                        try {
                            walk(item, depth + 1);
                        } catch (ValueException e) {
                            throw e.at(p).within(map ? "{}" : "[]");
                        }
                    }
                }
            }
            default -> throw new ValueException(22, "an internal error of the decoder's program");
        }
    }
}
