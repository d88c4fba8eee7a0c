package io.kvlog.spark.tiered;

import io.kvlog.spark.log.RemoteFiles;
import java.io.IOException;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * One remote segment as the Aiven plugin stored it, as a split carries it to an executor: its three objects
 * (fully qualified paths), what {@code __remote_log_metadata} says of it (to hold the manifest against), and the
 * key ring's private key files by key pair id (file paths only: the executor reads the keys).
 *
 * @param log the {@code .log} object (chunks)
 * @param indexes the {@code .indexes} object
 * @param manifest the {@code .rsm-manifest} object
 * @param describe the segment as messages name it
 * @param segmentId the segment id of {@code __remote_log_metadata}
 * @param start its start offset
 * @param size its {@code .log}'s size in bytes (-1: not known)
 * @param keyPrefix the plugin's {@code key.prefix} configured here (for the message of a missing manifest)
 * @param keyFiles key pair id -> private key PEM file
 */
record AivenSegment(String log, String indexes, String manifest, String describe, String segmentId, long start,
                    long size, String keyPrefix, TreeMap<String, String> keyFiles) implements RemoteFiles {
    /** Its objects shown as the files Kafka wrote ({@link AivenSegmentFs#of}). */
    @Override
    public FileSystem fileSystem(Configuration conf) throws IOException {
        return AivenSegmentFs.of(this, conf);
    }
}
