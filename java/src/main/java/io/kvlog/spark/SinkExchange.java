package io.kvlog.spark;

import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The logical side of {@link SinkExchangeExec}: what adaptive execution re-plans when it re-optimizes a JVM sink
 * write's input, so that the batch exchange comes back as itself ({@link SinkStrategy} plans this node) rather
 * than as a second write or as no exchange at all.
 */
public final class SinkExchange extends LogicalPlan {
    private static final long serialVersionUID = 1L;
    private final LogicalPlan child;
    private final SinkRouting routing;
    private final int writerTasks;
    private final Seq<Attribute> output;

    /** Public, and the product's elements are its arguments: Spark copies plan nodes through the constructor. */
    public SinkExchange(LogicalPlan child, SinkRouting routing, int writerTasks, Seq<Attribute> output) {
        this.child = child;
        this.routing = routing;
        this.writerTasks = writerTasks;
        this.output = output;
    }

    LogicalPlan child() {
        return child;
    }

    SinkRouting routing() {
        return routing;
    }

    int writerTasks() {
        return writerTasks;
    }

    @Override
    public Seq<Attribute> output() {
        return output;
    }

    @Override
    public Seq<LogicalPlan> children() {
        return CollectionConverters.asScala(List.of(child)).toList();
    }

    @Override
    public LogicalPlan withNewChildrenInternal(IndexedSeq<LogicalPlan> newChildren) {
        return new SinkExchange(newChildren.apply(0), routing, writerTasks, output);
    }

    @Override
    public int productArity() {
        return 4;
    }

    @Override
    public Object productElement(int n) {
        return switch (n) {
            case 0 -> child;
            case 1 -> routing;
            case 2 -> writerTasks;
            case 3 -> output;
            default -> throw new IndexOutOfBoundsException(n);
        };
    }

    @Override
    public boolean canEqual(Object other) {
        return other instanceof SinkExchange;
    }

    @Override
    public String nodeName() {
        return "KvlogSinkExchange";
    }
}
