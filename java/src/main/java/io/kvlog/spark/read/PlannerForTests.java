package io.kvlog.spark.read;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Test entry point (not an API): plan a batch read as the JVM scan does, without running it, so that the planning
 * cases of {@code tests/planning_cases.py} check this planner and the Python one against the same table.
 */
public final class PlannerForTests {
    private PlannerForTests() {
    }

    /**
     * The offset ranges a batch read with {@code options} (including {@code path} or {@code paths}) would scan, one
     * line {@code topic partition start end} per range in planning order, after the maxRecordsPerPartition and
     * minPartitions splits; no pushed filters. Refused options throw, as a read would.
     */
    public static String plan(Map<String, String> options) throws IOException {
        ReadOptions opts = ReadOptions.parse(new CaseInsensitiveStringMap(options), false);
        Configuration conf = SparkSession.active().sessionState().newHadoopConf();
        List<LogRange> ranges = new OffsetRangePlanner(opts, conf).plan(new PushedFilters());
        StringBuilder out = new StringBuilder();
        for (LogRange r : ranges) {
            out.append(r.topic()).append(' ').append(r.partition()).append(' ').append(r.start()).append(' ')
                .append(r.end()).append('\n');
        }
        return out.toString();
    }
}
