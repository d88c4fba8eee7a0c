package io.kvlog.spark.tiered;

import io.kvlog.spark.log.SegmentList;
import io.kvlog.spark.metadata.RemoteLogMetadataReplay;
import java.io.IOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Where a remote storage manager keeps a remote segment's files: {@link LocalTieredLayout} (Kafka's own files,
 * unchanged) or {@link AivenLayout} (the Aiven plugin's chunked objects, shown to the segment readers as Kafka's
 * files). The segment readers take a segment as a file system and the path of its {@code .log}, its indexes
 * beside it with the same stem ({@code .index}, {@code .timeindex}, {@code .txnindex}).
 */
public interface RemoteLayout {
    /** The file system the driver reads remote segments through ({@link #logFile} paths are of it). */
    FileSystem fs();

    /** The segment's {@code .log} as {@link #fs()} serves it; a {@link RemoteSegmentException} when it is missing. */
    Path logFile(RemoteLogMetadataReplay.Segment s) throws IOException;

    /** The segment as a split carries it to an executor. */
    SegmentList segments(RemoteLogMetadataReplay.Segment s) throws IOException;
}
