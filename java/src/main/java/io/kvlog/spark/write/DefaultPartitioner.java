package io.kvlog.spark.write;

import java.nio.ByteOrder;
import org.apache.spark.unsafe.Platform;

/**
 * Kafka's default partition for a row without an explicit partition, as kvlog's Python sink routes it: a keyed
 * row goes to {@code toPositive(murmur2(key)) % partitions} (Kafka's producer, every version). A row with a null
 * key goes to {@code toPositive(murmur2(value)) % partitions} (a null value hashes as empty bytes): Kafka's
 * producer spreads such rows by its sticky batches, which no file writer has; a rule that depends only on the row
 * spreads them as evenly and routes a retried task's rows exactly as the first attempt did, which exactly-once
 * writes need.
 */
final class DefaultPartitioner {
    private static final int M = 0x5bd1e995;
    private static final int SEED = 0x9747b28c;
    private static final byte[] EMPTY = new byte[0];
    private static final boolean BIG_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;

    private DefaultPartitioner() {
    }

    /** The partition of a row with this key (null: by its value) among {@code partitions}. */
    static int partition(byte[] key, byte[] value, int partitions) {
        byte[] b = key != null ? key : value != null ? value : EMPTY;
        return keyed(b, 0, b.length, partitions);
    }

    /**
     * {@link #partition(byte[], byte[], int)} for key and value bytes where they lie ({@link Platform}'s base and
     * address; a length of -1 for null), as a Spark {@code UnsafeRow} holds them.
     */
    static int partition(Object keyBase, long keyAt, int keyLen, Object valueBase, long valueAt, int valueLen,
                         int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("a topic needs at least one partition, got " + partitions);
        }
        int h = keyLen >= 0 ? murmur2(keyBase, keyAt, keyLen)
            : valueLen >= 0 ? murmur2(valueBase, valueAt, valueLen) : murmur2((Object) EMPTY, (long) Platform.BYTE_ARRAY_OFFSET, 0);
        return toPositive(h) % partitions;
    }

    /** {@code toPositive(murmur2(key)) % partitions} for the key bytes {@code b[off, off + len)}. */
    static int keyed(byte[] b, int off, int len, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("a topic needs at least one partition, got " + partitions);
        }
        return toPositive(murmur2(b, off, len)) % partitions;
    }

    /** Kafka's {@code Utils.toPositive}: the sign bit cleared (not the absolute value). */
    static int toPositive(int n) {
        return n & 0x7fffffff;
    }

    static int murmur2(byte[] b) {
        return murmur2(b, 0, b.length);
    }

    /**
     * Kafka's {@code Utils.murmur2}: 32-bit MurmurHash2 with seed 0x9747b28c, four bytes at a time read
     * little-endian, the last one to three bytes folded in from the highest down.
     */
    static int murmur2(byte[] b, int off, int len) {
        if (off < 0 || len < 0 || off > b.length - len) {
            throw new IndexOutOfBoundsException("bytes " + off + ".." + (off + len) + " of " + b.length);
        }
        return murmur2((Object) b, (long) Platform.BYTE_ARRAY_OFFSET + off, len);
    }

    /** {@link #murmur2(byte[], int, int)} over {@code len} bytes at {@code base}/{@code at} ({@link Platform}). */
    static int murmur2(Object base, long at, int len) {
        int h = SEED ^ len;
        int whole = len & ~3;
        for (int i = 0; i < whole; i += 4) {
            int k = Platform.getInt(base, at + i);
            if (BIG_ENDIAN) {
                k = Integer.reverseBytes(k);
            }
            k *= M;
            k ^= k >>> 24;
            k *= M;
            h *= M;
            h ^= k;
        }
        long tail = at + whole;
        int rest = len & 3;
        if (rest == 3) {
            h ^= (Platform.getByte(base, tail + 2) & 0xff) << 16;
        }
        if (rest >= 2) {
            h ^= (Platform.getByte(base, tail + 1) & 0xff) << 8;
        }
        if (rest >= 1) {
            h ^= Platform.getByte(base, tail) & 0xff;
            h *= M;
        }
        h ^= h >>> 13;
        h *= M;
        h ^= h >>> 15;
        return h;
    }
}
