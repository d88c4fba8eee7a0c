package io.kvlog.spark.read;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNotNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;

/**
 * Filters on topic, partition and offset, applied exactly to the planned ranges, and lower bounds on timestamp,
 * which only narrow the scan through a time search (Spark still evaluates those), as the Python source does.
 */
final class PushedFilters {
    Set<String> topics;
    Set<Integer> partitions;
    long offsetLo = 0;
    long offsetHi = Long.MAX_VALUE;
    long partLo = Integer.MIN_VALUE;
    long partHi = Integer.MAX_VALUE;
    Long timestampLo; // epoch ms

    /** Folds one filter in; true when it is applied exactly (Spark need not evaluate it again). */
    boolean accept(Filter f) {
        String[] refs = f.references();
        if (refs.length != 1) {
            return false;
        }
        String col = refs[0];
        if (f instanceof IsNotNull) { // Spark infers these; no kvlog row has a null in those columns
            return PushedAggregation.neverNull(col);
        }
        Object value = valueOf(f);
        switch (col) {
            case KafkaSchema.TOPIC:
                return acceptTopic(f, value);
            case KafkaSchema.PARTITION:
            case KafkaSchema.OFFSET:
                return acceptRange(col, f, value);
            case KafkaSchema.TIMESTAMP:
                if (f instanceof GreaterThan || f instanceof GreaterThanOrEqual || f instanceof EqualTo) {
                    Long ms = epochMillis(value);
                    if (ms != null) {
                        timestampLo = timestampLo == null ? ms : Math.max(timestampLo, ms);
                    }
                }
                return false;
            default:
                return false;
        }
    }

    private static Object valueOf(Filter f) {
        if (f instanceof EqualTo e) {
            return e.value();
        } else if (f instanceof GreaterThan g) {
            return g.value();
        } else if (f instanceof GreaterThanOrEqual g) {
            return g.value();
        } else if (f instanceof LessThan l) {
            return l.value();
        } else if (f instanceof LessThanOrEqual l) {
            return l.value();
        }
        return null;
    }

    private boolean acceptTopic(Filter f, Object value) {
        Set<String> got = new HashSet<>();
        if (f instanceof EqualTo && value instanceof String s) {
            got.add(s);
        } else if (f instanceof In in) {
            for (Object v : in.values()) {
                if (!(v instanceof String s)) {
                    return false;
                }
                got.add(s);
            }
        } else {
            return false;
        }
        if (topics == null) {
            topics = got;
        } else {
            topics.retainAll(got);
        }
        return true;
    }

    private boolean acceptRange(String col, Filter f, Object value) {
        if (f instanceof In in) {
            if (!col.equals(KafkaSchema.PARTITION)) {
                return false;
            }
            Set<Integer> got = new HashSet<>();
            for (Object v : in.values()) {
                if (!(v instanceof Integer i)) {
                    return false;
                }
                got.add(i);
            }
            if (partitions == null) {
                partitions = got;
            } else {
                partitions.retainAll(got);
            }
            return true;
        }
        if (!(value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte)) {
            return false;
        }
        long v = ((Number) value).longValue();
        Long lo = null;
        Long hi = null;
        if (f instanceof EqualTo) {
            lo = v;
            hi = v;
        } else if (f instanceof GreaterThan) {
            lo = v + 1;
        } else if (f instanceof GreaterThanOrEqual) {
            lo = v;
        } else if (f instanceof LessThan) {
            hi = v - 1;
        } else if (f instanceof LessThanOrEqual) {
            hi = v;
        } else {
            return false;
        }
        if (col.equals(KafkaSchema.OFFSET)) {
            if (lo != null) {
                offsetLo = Math.max(offsetLo, lo);
            }
            if (hi != null) {
                offsetHi = Math.min(offsetHi, hi == Long.MAX_VALUE ? hi : hi + 1);
            }
        } else {
            if (lo != null) {
                partLo = Math.max(partLo, lo);
            }
            if (hi != null) {
                partHi = Math.min(partHi, hi);
            }
        }
        return true;
    }

    private static Long epochMillis(Object value) {
        Instant at;
        if (value instanceof java.sql.Timestamp t) {
            at = t.toInstant();
        } else if (value instanceof Instant i) {
            at = i;
        } else {
            return null;
        }
        long micros = Math.addExact(Math.multiplyExact(at.getEpochSecond(), 1_000_000L), at.getNano() / 1000);
        return Math.floorDiv(micros, 1000);
    }

    boolean keeps(LogRange r) {
        return (topics == null || topics.contains(r.topic()))
            && (partitions == null || partitions.contains(r.partition()))
            && partLo <= r.partition() && r.partition() <= partHi;
    }
}
