package io.kvlog.spark.tiered;

import io.kvlog.spark.log.BrokerFiles;
import io.kvlog.spark.log.TopicPartition;
import io.kvlog.spark.metadata.RemoteLogMetadataReplay;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Where a tiered topic's remote history is: the replayed {@code __remote_log_metadata} (which segments) and the
 * remote storage manager's layout (where their files are). Driver-side only: planning turns it into remote pieces
 * whose splits carry plain file paths.
 */
public final class TieredSource {
    final RemoteLogMetadataReplay metadata;
    public final RemoteLayout layout;

    public TieredSource(RemoteLogMetadataReplay metadata, RemoteLayout layout) {
        this.metadata = metadata;
        this.layout = layout;
    }

    /**
     * The in-log remote segments of the partition in {@code dir}, by start offset: of the topic id its
     * {@code partition.metadata} names (other ids are a deleted incarnation of the topic), or, without one, of the
     * only id there is (several: an error, as the Python view's).
     */
    public List<RemoteLogMetadataReplay.Segment> segmentsOf(FileSystem fs, Path dir, TopicPartition tp) throws IOException {
        String topicId = BrokerFiles.readTopicId(fs, dir);
        List<RemoteLogMetadataReplay.Segment> segs = metadata.inLog(tp.topic(), tp.partition(), topicId);
        if (topicId == null) {
            TreeSet<String> ids = new TreeSet<>();
            segs.forEach(s -> ids.add(s.tp.topicId()));
            if (ids.size() > 1) {
                throw new IllegalStateException(tp + ": __remote_log_metadata holds remote segments of " + ids.size()
                    + " topics of this name (" + String.join(", ", ids) + ": the topic was deleted and created "
                    + "again), and the partition directory has no partition.metadata to say which is this one");
            }
        }
        List<RemoteLogMetadataReplay.Segment> out = new ArrayList<>(segs);
        out.sort((a, b) -> a.start != b.start ? Long.compare(a.start, b.start) : Long.compare(a.end, b.end));
        return out;
    }
}
