package io.kvlog.spark.write;

import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;

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
        return SinkExchangeNode.children(child);
    }

    @Override
    public LogicalPlan withNewChildrenInternal(IndexedSeq<LogicalPlan> newChildren) {
        return new SinkExchange(newChildren.apply(0), routing, writerTasks, output);
    }

    @Override
    public int productArity() {
        return SinkExchangeNode.ARITY;
    }

    @Override
    public Object productElement(int n) {
        return SinkExchangeNode.element(n, child, routing, writerTasks, output);
    }

    @Override
    public boolean canEqual(Object other) {
        return other instanceof SinkExchange;
    }

    @Override
    public String nodeName() {
        return SinkExchangeNode.NAME;
    }
}
