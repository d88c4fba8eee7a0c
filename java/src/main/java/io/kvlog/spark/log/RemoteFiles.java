package io.kvlog.spark.log;

import java.io.IOException;
import java.io.Serializable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * A remote segment whose files are not a Hadoop file system's own, as a split carries it to an executor: it opens
 * the file system that shows its objects as the files Kafka wrote (the Aiven plugin's chunked objects:
 * {@code tiered.AivenSegment}). The segment readers then read it unchanged.
 */
public interface RemoteFiles extends Serializable {
    /** The file system that serves the segment's {@code .log} and its indexes beside it. */
    FileSystem fileSystem(Configuration conf) throws IOException;
}
