package io.kvlog.spark;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The Hadoop file system for a log path. Local paths use the raw local file system: Hadoop's checksummed one
 * looks for {@code .crc} side files Kafka never writes and copies every read through small buffers; the
 * batches carry their own CRCs, which are checked.
 */
final class LogFileSystems {
    private LogFileSystems() {
    }

    static FileSystem of(Path path, Configuration conf) throws IOException {
        FileSystem fs = path.getFileSystem(conf);
        return fs instanceof LocalFileSystem local ? local.getRaw() : fs;
    }
}
