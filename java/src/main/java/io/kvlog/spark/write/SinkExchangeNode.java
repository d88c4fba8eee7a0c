package io.kvlog.spark.write;

import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What the two sides of the sink's exchange share, {@link SinkExchange} (logical) and {@link SinkExchangeExec}
 * (physical): both are one Spark plan node over one child, shown under one name, whose product elements are its
 * constructor's arguments (child, routing, writer tasks, output), as Spark copies plan nodes through the
 * constructor. The two cannot share a base class (one is a {@code LogicalPlan}, the other a {@code SparkPlan}).
 */
final class SinkExchangeNode {
    /** The name both sides show in a plan. */
    static final String NAME = "KvlogSinkExchange";
    /** Child, routing, writer tasks, output. */
    static final int ARITY = 4;

    private SinkExchangeNode() {
    }

    /** Product element {@code n} of a node with these arguments. */
    static Object element(int n, Object child, SinkRouting routing, int writerTasks, Seq<Attribute> output) {
        return switch (n) {
            case 0 -> child;
            case 1 -> routing;
            case 2 -> writerTasks;
            case 3 -> output;
            default -> throw new IndexOutOfBoundsException(n);
        };
    }

    /** A node's one child as Spark's list of children. */
    static <T> Seq<T> children(T child) {
        return CollectionConverters.asScala(List.of(child)).toList();
    }
}
