package io.kvlog.oracle;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

/**
 * A KIP-405 RemoteStorageManager that copies each segment's files into a directory, in the layout of Kafka's
 * test plugin LocalTieredStorage ({@code <dir>/kafka-tiered-storage/<topic>-<partition>-<topic id>/
 * <20-digit start offset>-<segment id>.<suffix>}), for brokers whose own test jar is not served (Kafka 4.4.0):
 * the broker's remote segments and {@code __remote_log_metadata} stay the broker's own.
 * Config (prefix {@code rsm.config.}): {@code dir}.
 */
public final class DirectoryRemoteStorage implements RemoteStorageManager {
    private Path root;

    @Override
    public void configure(Map<String, ?> configs) {
        Object dir = configs.get("dir");
        if (dir == null) {
            throw new IllegalArgumentException("rsm.config.dir is required");
        }
        root = Paths.get(dir.toString()).resolve("kafka-tiered-storage");
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path base(RemoteLogSegmentMetadata md) {
        TopicIdPartition tp = md.topicIdPartition();
        Path partition = root.resolve(tp.topic() + "-" + tp.partition() + "-" + tp.topicId());
        String name = String.format("%020d", md.startOffset()) + "-" + md.remoteLogSegmentId().id();
        return partition.resolve(name);
    }

    private static Path with(Path base, String suffix) {
        return base.resolveSibling(base.getFileName() + suffix);
    }

    @Override
    public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(RemoteLogSegmentMetadata md,
            LogSegmentData data) throws RemoteStorageException {
        Path base = base(md);
        try {
            Files.createDirectories(base.getParent());
            Files.copy(data.logSegment(), with(base, ".log"), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(data.offsetIndex(), with(base, ".index"), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(data.timeIndex(), with(base, ".timeindex"), StandardCopyOption.REPLACE_EXISTING);
            if (data.transactionIndex().isPresent()) {
                Files.copy(data.transactionIndex().get(), with(base, ".txnindex"), StandardCopyOption.REPLACE_EXISTING);
            }
            Files.copy(data.producerSnapshotIndex(), with(base, ".snapshot"), StandardCopyOption.REPLACE_EXISTING);
            ByteBuffer epochs = data.leaderEpochIndex().duplicate();
            try (FileChannel ch = FileChannel.open(with(base, ".leader_epoch_checkpoint"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                while (epochs.hasRemaining()) {
                    ch.write(epochs);
                }
            }
        } catch (IOException e) {
            throw new RemoteStorageException("copying " + md + " failed", e);
        }
        return Optional.empty();
    }

    private static InputStream range(Path file, int start, int end) throws RemoteStorageException {
        try (SeekableByteChannel ch = Files.newByteChannel(file)) {
            long size = ch.size();
            long stop = Math.min(size, (long) end + 1);
            if (start > stop) {
                throw new RemoteStorageException("start " + start + " is past the end of " + file);
            }
            ByteBuffer buf = ByteBuffer.allocate((int) (stop - start));
            ch.position(start);
            while (buf.hasRemaining() && ch.read(buf) > 0) {
                // read all of it
            }
            return new ByteArrayInputStream(buf.array(), 0, buf.position());
        } catch (IOException e) {
            throw new RemoteStorageException("reading " + file + " failed", e);
        }
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata md, int startPosition) throws RemoteStorageException {
        return range(with(base(md), ".log"), startPosition, Integer.MAX_VALUE - 1);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata md, int startPosition, int endPosition)
            throws RemoteStorageException {
        return range(with(base(md), ".log"), startPosition, endPosition);
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata md, IndexType type) throws RemoteStorageException {
        String suffix;
        switch (type) {
            case OFFSET: suffix = ".index"; break;
            case TIMESTAMP: suffix = ".timeindex"; break;
            case PRODUCER_SNAPSHOT: suffix = ".snapshot"; break;
            case TRANSACTION: suffix = ".txnindex"; break;
            case LEADER_EPOCH: suffix = ".leader_epoch_checkpoint"; break;
            default: throw new RemoteStorageException("unknown index type " + type);
        }
        Path file = with(base(md), suffix);
        if (type == IndexType.TRANSACTION && !Files.exists(file)) {
            throw new org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException("no " + file);
        }
        return range(file, 0, Integer.MAX_VALUE - 1);
    }

    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata md) throws RemoteStorageException {
        Path base = base(md);
        try {
            for (String s : new String[] {".log", ".index", ".timeindex", ".txnindex", ".snapshot",
                ".leader_epoch_checkpoint"}) {
                Files.deleteIfExists(with(base, s));
            }
        } catch (IOException e) {
            throw new RemoteStorageException("deleting " + md + " failed", e);
        }
    }

    @Override
    public void close() {
    }
}
