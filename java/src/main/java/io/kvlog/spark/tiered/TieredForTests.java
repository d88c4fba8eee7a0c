package io.kvlog.spark.tiered;

import io.kvlog.spark.fs.LogFileSystems;
import io.kvlog.spark.metadata.RemoteLogMetadataRecord;
import io.kvlog.spark.metadata.RemoteLogMetadataReplay;
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

    /**
     * The lineage plan of {@link TieredLineage} as text ("id start end" per piece, one a line; or "error\t" and the
     * message). {@code segments}: one "id start end epoch:offset,epoch:offset" a line, in the order the planner
     * gets them; {@code localEpochs}: "epoch:offset,..." ("" for none); {@code localLogStart} -1: no local segment.
     */
    public static String pieces(String segments, String localEpochs, long logStartOffset, long localLogStart) {
        java.util.List<RemoteLogMetadataReplay.Segment> segs = new java.util.ArrayList<>();
        RemoteLogMetadataReplay.Tp tp = new RemoteLogMetadataReplay.Tp("id", "t", 0);
        for (String line : segments.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.trim().split(" ");
            java.util.TreeMap<Integer, Long> epochs = new java.util.TreeMap<>();
            for (String eo : f[3].split(",")) {
                String[] kv = eo.split(":");
                epochs.put(Integer.parseInt(kv[0]), Long.parseLong(kv[1]));
            }
            segs.add(new RemoteLogMetadataReplay.Segment(tp, f[0], Long.parseLong(f[1]), Long.parseLong(f[2]), epochs));
        }
        java.util.List<long[]> local = new java.util.ArrayList<>();
        for (String eo : localEpochs.split(",")) {
            if (!eo.isBlank()) {
                String[] kv = eo.split(":");
                local.add(new long[] {Long.parseLong(kv[0]), Long.parseLong(kv[1])});
            }
        }
        StringBuilder out = new StringBuilder();
        try {
            for (TieredLineage.Piece p : TieredLineage.plan(segs, local, logStartOffset,
                    localLogStart < 0 ? null : localLogStart)) {
                out.append(p.segment().id).append(' ').append(p.start()).append(' ').append(p.end()).append('\n');
            }
        } catch (RemoteSegmentException e) {
            return "error\t" + e.getMessage();
        }
        return out.toString();
    }
}
