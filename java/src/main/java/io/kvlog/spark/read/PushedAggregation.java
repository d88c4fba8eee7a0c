package io.kvlog.spark.read;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.connector.expressions.aggregate.Sum;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Aggregates a scan answers from batch headers: {@code count(*)}, {@code count} of a column that is never null,
 * and {@code min}, {@code max}, {@code sum} of {@code offset}, grouped by nothing, {@code topic} and/or
 * {@code partition}. Each task returns partial results for its offset range (one row, or none when the range
 * holds no record) and Spark merges them; anything else is left to Spark.
 */
final class PushedAggregation implements Serializable {
    private static final long serialVersionUID = 1L;

    enum Kind { COUNT, MIN, MAX, SUM }

    final String[] groupBy;
    final Kind[] kinds;

    private PushedAggregation(String[] groupBy, Kind[] kinds) {
        this.groupBy = groupBy;
        this.kinds = kinds;
    }

    /** The aggregation as kvlog can serve it, or null when any part of it needs the records. */
    static PushedAggregation of(Aggregation aggregation) {
        List<String> groups = new ArrayList<>();
        for (Expression e : aggregation.groupByExpressions()) {
            String c = column(e);
            if (!KafkaSchema.TOPIC.equals(c) && !KafkaSchema.PARTITION.equals(c)) {
                return null;
            }
            groups.add(c);
        }
        List<Kind> kinds = new ArrayList<>();
        for (AggregateFunc f : aggregation.aggregateExpressions()) {
            Kind k = kind(f);
            if (k == null) {
                return null;
            }
            kinds.add(k);
        }
        return new PushedAggregation(groups.toArray(new String[0]), kinds.toArray(new Kind[0]));
    }

    private static Kind kind(AggregateFunc f) {
        if (f instanceof CountStar) {
            return Kind.COUNT;
        }
        if (f instanceof Count c) {
            return !c.isDistinct() && neverNull(column(c.column())) ? Kind.COUNT : null;
        }
        if (f instanceof Min m) {
            return KafkaSchema.OFFSET.equals(column(m.column())) ? Kind.MIN : null;
        }
        if (f instanceof Max m) {
            return KafkaSchema.OFFSET.equals(column(m.column())) ? Kind.MAX : null;
        }
        if (f instanceof Sum s) {
            return !s.isDistinct() && KafkaSchema.OFFSET.equals(column(s.column())) ? Kind.SUM : null;
        }
        return null;
    }

    /** Columns every record has: the Kafka schema marks them nullable, but no row of kvlog's holds a null there. */
    static boolean neverNull(String c) {
        return KafkaSchema.TOPIC.equals(c) || KafkaSchema.PARTITION.equals(c) || KafkaSchema.OFFSET.equals(c)
            || KafkaSchema.TIMESTAMP.equals(c) || KafkaSchema.TIMESTAMP_TYPE.equals(c);
    }

    private static String column(Expression e) {
        if (e instanceof NamedReference r && r.fieldNames().length == 1) {
            return r.fieldNames()[0];
        }
        return null;
    }

    /** Rows of {@link #schema()} values (String, Integer, Long or null) as one columnar batch. */
    ColumnarBatch batch(List<Object[]> rows) {
        StructType schema = schema();
        int n = rows.size();
        ColumnVector[] vectors = new ColumnVector[schema.fields().length];
        for (int c = 0; c < vectors.length; c++) {
            OnHeapColumnVector v = new OnHeapColumnVector(Math.max(n, 1), schema.fields()[c].dataType());
            for (int r = 0; r < n; r++) {
                Object x = rows.get(r)[c];
                if (x == null) {
                    v.putNull(r);
                } else if (x instanceof String s) {
                    byte[] b = UTF8String.fromString(s).getBytes();
                    v.putByteArray(r, b, 0, b.length);
                } else if (x instanceof Integer i) {
                    v.putInt(r, i);
                } else {
                    v.putLong(r, (Long) x);
                }
            }
            vectors[c] = v;
        }
        return new ColumnarBatch(vectors, n);
    }

    /** Group-by columns, then one long per aggregate, in Spark's order. */
    StructType schema() {
        StructType s = new StructType();
        for (String g : groupBy) {
            s = KafkaSchema.TOPIC.equals(g) ? s.add(g, DataTypes.StringType, false)
                : s.add(g, DataTypes.IntegerType, false);
        }
        for (int i = 0; i < kinds.length; i++) {
            s = s.add("agg" + i + "_" + kinds[i].name().toLowerCase(java.util.Locale.ROOT), DataTypes.LongType,
                kinds[i] != Kind.COUNT);
        }
        return s;
    }
}
