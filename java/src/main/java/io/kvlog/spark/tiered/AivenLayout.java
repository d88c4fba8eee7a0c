package io.kvlog.spark.tiered;

import io.kvlog.spark.log.SegmentList;
import io.kvlog.spark.metadata.RemoteLogMetadataReplay;
import java.io.IOException;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Aiven's tiered-storage-for-apache-kafka layout under a root on any Hadoop file system
 * ({@code kvlog.remoteStorage.layout=aiven}): a segment's {@code .log}, {@code .indexes} and {@code .rsm-manifest}
 * objects at the keys {@link AivenObjectKeys} gives, with the plugin's {@code key.prefix}
 * ({@code kvlog.remoteStorage.keyPrefix}) and the key ring's private keys ({@code kvlog.remoteStorage.keyPairs}).
 * The readers see each segment as Kafka's files through {@link AivenSegmentFs}; no object is read to plan.
 */
public final class AivenLayout implements RemoteLayout {
    private final Path root;
    private final String keyPrefix;
    private final TreeMap<String, String> keyFiles;
    private final AivenSegmentFs fs;

    public AivenLayout(FileSystem store, Path root, String keyPrefix, String keyPairs, Configuration conf) {
        this.root = root;
        this.keyPrefix = keyPrefix == null ? "" : keyPrefix;
        this.keyFiles = AivenKeyRing.parseOption(keyPairs);
        this.fs = new AivenSegmentFs(store, new AivenKeyRing(keyFiles), conf);
    }

    @Override
    public FileSystem fs() {
        return fs;
    }

    AivenSegment describe(RemoteLogMetadataReplay.Segment s) {
        AivenObjectKeys keys = AivenObjectKeys.of(s, keyPrefix);
        return new AivenSegment(new Path(root, keys.log).toString(), new Path(root, keys.indexes).toString(),
            new Path(root, keys.manifest).toString(), TieredLineage.describe(s), s.id, s.start, s.size, keyPrefix,
            keyFiles);
    }

    @Override
    public Path logFile(RemoteLogMetadataReplay.Segment s) {
        return fs.add(describe(s));
    }

    @Override
    public SegmentList segments(RemoteLogMetadataReplay.Segment s) {
        AivenSegment seg = describe(s);
        return SegmentList.remote(fs.add(seg), s.start, seg);
    }
}
