package io.kvlog.spark.tiered;

import io.kvlog.spark.fs.LogFileSystems;
import io.kvlog.spark.log.SegmentList;
import io.kvlog.spark.metadata.RemoteLogMetadataReplay;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Kafka's {@code LocalTieredStorage} layout (the remote storage manager of Kafka's own tests and quick starts)
 * under a root on any Hadoop filesystem: a partition's directory is {@code <topic>-<partition>-<topic id>}, a
 * segment's files {@code <start offset>-<segment id><suffix>} (start offset in plain decimal), or
 * {@code <segment id><suffix>} as releases before the offset was added wrote them. The files are Kafka's own
 * segment files, unchanged: {@code .log}, {@code .index}, {@code .timeindex}, {@code .txnindex} (only with
 * aborted transactions), {@code .snapshot}, {@code .leader_epoch_checkpoint}. A segment's {@code .log} and its
 * indexes share a stem, so the segment readers find the indexes beside the {@code .log} as for a local segment.
 * Each partition directory is listed once.
 */
public final class LocalTieredLayout implements RemoteLayout {
    public static final String NAME = "LocalTieredStorage";
    private final FileSystem fs;
    private final Path root;
    private final Map<Path, Set<String>> listings = new HashMap<>();

    public LocalTieredLayout(FileSystem fs, Path root) {
        this.fs = fs;
        this.root = root;
    }

    @Override
    public FileSystem fs() {
        return fs;
    }

    Path partitionDir(RemoteLogMetadataReplay.Segment s) {
        return new Path(root, s.tp.topic() + "-" + s.tp.partition() + "-" + s.tp.topicId());
    }

    private Set<String> listing(Path dir) throws IOException {
        Set<String> names = listings.get(dir);
        if (names == null) {
            names = new HashSet<>();
            try {
                for (FileStatus st : fs.listStatus(dir)) {
                    names.add(st.getPath().getName());
                }
            } catch (FileNotFoundException e) {
                // no directory: every file of it is missing
            }
            listings.put(dir, names);
        }
        return names;
    }

    /** The segment's {@code .log}; a {@link RemoteSegmentException} naming the file when it is not there. */
    @Override
    public Path logFile(RemoteLogMetadataReplay.Segment s) throws IOException {
        Path dir = partitionDir(s);
        Set<String> names = listing(dir);
        // Kafka's LocalTieredStorage writes the start offset zero-padded to 20 digits (seen from 3.7.2 and 4.1.2
        // brokers); the unpadded and id-only stems are read too.
        for (String stem : new String[] {String.format("%020d-%s", s.start, s.id), s.start + "-" + s.id, s.id}) {
            if (names.contains(stem + ".log")) {
                return new Path(dir, stem + ".log");
            }
        }
        String file = LogFileSystems.shown(new Path(dir, String.format("%020d-%s.log", s.start, s.id)).toString());
        throw new RemoteSegmentException(file, -1, TieredLineage.describe(s) + ": its file " + file
            + " is not in the LocalTieredStorage directory " + LogFileSystems.shown(dir.toString()));
    }

    @Override
    public SegmentList segments(RemoteLogMetadataReplay.Segment s) throws IOException {
        return SegmentList.remote(logFile(s), s.start);
    }
}
