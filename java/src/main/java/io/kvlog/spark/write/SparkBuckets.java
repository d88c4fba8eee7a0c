package io.kvlog.spark.write;

import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.unsafe.hash.Murmur3_x86_32;

/**
 * Numbers that Spark's hash partitioning sends to chosen buckets. A clustered write is shuffled by
 * {@code pmod(murmur3(value, 42), n)} (Spark's {@code HashPartitioning}, the same hash as SQL's {@code hash()}).
 * For each bucket {@code b < n} this finds the smallest non-negative int landing there, so a clustering value of
 * {@code keyOf(p, n)} puts Kafka partition {@code p} alone in shuffle partition {@code p}. If Spark ever hashed
 * otherwise, rows would still be clustered by partition (one number per partition); only the balance would go.
 */
final class SparkBuckets {
    private static final int SEED = 42;
    private static final ConcurrentHashMap<Integer, int[]> KEYS = new ConcurrentHashMap<>();

    private SparkBuckets() {
    }

    /** Spark's bucket of an int clustering value among {@code n}. */
    static int bucketOf(int value, int n) {
        return Math.floorMod(Murmur3_x86_32.hashInt(value, SEED), n);
    }

    /** The clustering value that lands partition {@code p} of {@code n} in bucket {@code p}. */
    static int keyOf(int p, int n) {
        return keysOf(n)[p];
    }

    /** Every partition's clustering value among {@code n} (shared: do not modify). */
    static int[] keysOf(int n) {
        return KEYS.computeIfAbsent(n, SparkBuckets::keys);
    }

    private static int[] keys(int n) {
        int[] out = new int[n];
        java.util.Arrays.fill(out, -1);
        int missing = n;
        for (int v = 0; missing > 0; v++) { // about n ln n tries: 0.1 M for n = 10,000
            int b = bucketOf(v, n);
            if (out[b] < 0) {
                out[b] = v;
                missing--;
            }
        }
        return out;
    }
}
