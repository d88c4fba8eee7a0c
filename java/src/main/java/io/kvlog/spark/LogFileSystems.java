package io.kvlog.spark;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UnsupportedFileSystemException;

/**
 * The Hadoop file system for a log path. Local paths use the raw local file system: Hadoop's checksummed one
 * looks for {@code .crc} side files Kafka never writes and copies every read through small buffers; the
 * batches carry their own CRCs, which are checked.
 */
final class LogFileSystems {
    private LogFileSystems() {
    }

    static FileSystem of(Path path, Configuration conf) throws IOException {
        FileSystem fs;
        try {
            fs = path.getFileSystem(conf);
        } catch (UnsupportedFileSystemException e) {
            String scheme = path.toUri().getScheme();
            throw new IllegalArgumentException("the JVM kvlog source reads through Hadoop file systems, and this cluster "
                + "has none for " + scheme + ":// (" + path + "); add the connector jar (hadoop-aws for s3a://, "
                + "hadoop-azure for abfs://, gcs-connector for gs://), or read with format(\"kvlog_python\"), which "
                + "opens object-store URIs through pyarrow", e);
        }
        return fs instanceof LocalFileSystem local ? local.getRaw() : fs;
    }
}
