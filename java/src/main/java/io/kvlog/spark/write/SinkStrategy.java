package io.kvlog.spark.write;

import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.AppendData;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.OverwriteByExpression;
import org.apache.spark.sql.catalyst.plans.logical.RepartitionByExpression;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.execution.PlanLater;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Strategy;
import org.apache.spark.sql.execution.streaming.sources.MicroBatchWrite;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Plans a JVM sink write with {@link SinkExchangeExec} in place of the row exchange Spark inserted for the write's
 * required distribution: Spark's own strategy plans the write node, and its input becomes the batch exchange over
 * what the rows came from. A stream's micro-batch gets it too, so it is written by one task per partition rather
 * than the single task its catalog-less distribution allows. Installed in the session (an extra strategy, a
 * runtime setting) when a kvlog write is first built; option {@code kvlog.sinkExchange=rows} keeps Spark's exchange.
 */
final class SinkStrategy extends SparkStrategy {
    /** Adds the strategy to the session once. */
    static void install(SparkSession spark) {
        var methods = spark.experimental();
        synchronized (methods) {
            List<SparkStrategy> now = new java.util.ArrayList<>(CollectionConverters.asJava(methods.extraStrategies()));
            for (SparkStrategy s : now) {
                if (s instanceof SinkStrategy) {
                    return;
                }
            }
            now.add(new SinkStrategy());
            methods.extraStrategies_$eq(CollectionConverters.asScala(now).toList());
        }
    }

    @Override
    public Seq<SparkPlan> apply(LogicalPlan plan) {
        if (plan instanceof SinkExchange x) { // adaptive execution re-planning the exchange it wraps
            SparkPlan exec = new SinkExchangeExec(new PlanLater(x.child()), x.routing(), x.writerTasks(), x.output());
            return CollectionConverters.asScala(List.of(exec)).toList();
        }
        KvlogWrite write = kvlogWrite(plan);
        if (write == null || !write.batchExchange()) {
            return empty();
        }
        SparkStrategy v2 = null;
        for (SparkStrategy s : CollectionConverters.asJava(SparkSession.active().sessionState().planner().strategies())) {
            if (s instanceof DataSourceV2Strategy) {
                v2 = s;
                break;
            }
        }
        if (v2 == null) {
            return empty();
        }
        List<SparkPlan> planned = CollectionConverters.asJava(v2.apply(plan));
        if (planned.size() != 1) {
            return empty();
        }
        LogicalPlan query = plan.children().head();
        // the exchange V2Writes added for requiredDistribution: the batch exchange takes its place
        LogicalPlan input = query instanceof RepartitionByExpression r ? r.child() : query;
        SinkExchange logical = new SinkExchange(input, write.routing(), write.writerTasks(), SinkExchangeExec.newOutput());
        SparkPlan exchange = new SinkExchangeExec(new PlanLater(input), logical.routing(), logical.writerTasks(),
            logical.output());
        // its own link: one inherited from the write node would make adaptive execution re-plan a second write
        exchange.setLogicalLink(logical);
        SparkPlan exec = planned.get(0).withNewChildren(CollectionConverters.asScala(List.of(exchange)).toList());
        return CollectionConverters.asScala(List.of(exec)).toList();
    }

    private static Seq<SparkPlan> empty() {
        return CollectionConverters.asScala(List.<SparkPlan>of()).toList();
    }

    @SuppressWarnings("deprecation") // WriteToDataSourceV2 is how Spark still plans a micro-batch's write
    private static KvlogWrite kvlogWrite(LogicalPlan plan) {
        Write w = null;
        if (plan instanceof AppendData a && a.write().isDefined()) {
            w = a.write().get();
        } else if (plan instanceof OverwriteByExpression o && o.write().isDefined()) {
            w = o.write().get();
        } else if (plan instanceof org.apache.spark.sql.execution.datasources.v2.WriteToDataSourceV2 s && s.batchWrite() instanceof MicroBatchWrite m
                && m.writeSupport() instanceof KvlogWrite.Streaming k) {
            return k.write();
        }
        return w instanceof KvlogWrite k ? k : null;
    }
}
