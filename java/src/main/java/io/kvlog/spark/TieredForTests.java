package io.kvlog.spark;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Test entry points (not an API): the JVM replay of {@code __remote_log_metadata} as text, so that
 * {@code tests/test_spark_tiered_jvm.py} holds it against {@code kvlog.remote_log_metadata} in Python.
 */
public final class TieredForTests {
    private TieredForTests() {
    }

    /**
     * One tab-separated line per remote segment, in the Python table's order: topic id, topic, partition, segment
     * id, start, end, state, in_log, reason ("-" for none), metadata partition, metadata offset. Then one line per
     * problem ("problem\t..."). A refused record throws when {@code strict}.
     */
    public static String replay(String root, boolean strict) throws IOException {
        Path path = new Path(root);
        FileSystem fs = LogFileSystems.of(path, new Configuration());
        RemoteLogMetadataReplay state = RemoteLogMetadataReplay.read(fs, fs.makeQualified(path), strict);
        StringBuilder out = new StringBuilder();
        for (RemoteLogMetadataReplay.Segment s : state.rows()) {
            out.append(s.tp.topicId()).append('\t').append(s.tp.topic()).append('\t').append(s.tp.partition())
                .append('\t').append(s.id).append('\t').append(s.start).append('\t').append(s.end).append('\t')
                .append(RemoteLogMetadataRecord.segmentState(s.state)).append('\t').append(s.inLog).append('\t')
                .append(s.reason == null ? "-" : s.reason).append('\t').append(s.metadataPartition).append('\t')
                .append(s.metadataOffset).append('\n');
        }
        for (String p : state.problems) {
            out.append("problem\t").append(p).append('\n');
        }
        return out.toString();
    }
}
