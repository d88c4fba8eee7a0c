package io.kvlog.spark.metadata;

import io.kvlog.spark.format.RecordSink;
import io.kvlog.spark.log.BatchDecoder;
import io.kvlog.spark.log.CommittedOffsets;
import io.kvlog.spark.log.LocalLog;
import io.kvlog.spark.log.LogStartCheckpoint;
import io.kvlog.spark.log.OffsetIndexLookup;
import io.kvlog.spark.log.SegmentList;
import io.kvlog.spark.log.SegmentStream;
import io.kvlog.spark.log.TopicPartition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A partition of one of Kafka's internal topics as the metadata replays ({@link KraftTopicConfigs},
 * {@link RemoteLogMetadataReplay}) read it: the one place they open a partition, read-only, and walk its batches
 * (as {@code kvlog.internal_topics.layout} is for the Python replays). They decode the batches it stands on.
 */
public final class InternalTopicLog {
    private static final int CHUNK_BYTES = 1 << 20;

    private InternalTopicLog() {
    }

    /** What a replay does with the batch the walk stands on. */
    interface Batches {
        void batch(SegmentStream s) throws IOException;
    }

    /**
     * Partition {@code tp} in {@code dir}, its log start and durable end from the checkpoints of the data
     * directory {@code root}; {@code committed}: its committed range (null: the directory is not governed).
     */
    static LocalLog open(FileSystem fs, Path dir, TopicPartition tp, Path root, CommittedOffsets.Range committed)
            throws IOException {
        return LocalLog.open(fs, dir, LogStartCheckpoint.read(fs, root).getOrDefault(tp, 0L),
            LogStartCheckpoint.durableEnds(fs, root).getOrDefault(tp, -1L), false, true, CHUNK_BYTES, false, false,
            committed);
    }

    /**
     * Hands {@code each} the batches of {@code log} holding offsets from {@code from} on that start before the log
     * end, in offset order; only the last segment may end in a torn batch (what a broker's recovery truncates).
     * Returns the offset after the last batch handed ({@code from} when none was).
     */
    static long walk(FileSystem fs, LocalLog log, long from, Batches each) throws IOException {
        SegmentList segs = log.segments;
        long next = from;
        for (int i = segs.segmentFor(from); i < segs.bases.length; i++) {
            Path p = segs.path(i);
            boolean last = i == segs.bases.length - 1;
            long at = OffsetIndexLookup.positionFor(fs, p, segs.bases[i], from, fs.getFileStatus(p).getLen());
            try (SegmentStream s = new SegmentStream(fs, p, at, CHUNK_BYTES)) {
                while (s.next(last)) {
                    if (BatchDecoder.baseOffset(s) >= log.logEndOffset) {
                        break;
                    }
                    if (BatchDecoder.lastOffset(s) < from) {
                        continue;
                    }
                    each.batch(s);
                    next = BatchDecoder.lastOffset(s) + 1;
                }
            }
        }
        return next;
    }

    /** A record of a replayed topic: its offset, key and value (null for a null key or value). */
    public record KeyValue(long offset, byte[] key, byte[] value) {
    }

    /**
     * Every record of the partition in {@code dir} (a topic's only partition, such as a schema registry's
     * {@code _schemas-0}), in offset order, from its log start to its durable end, as {@link #walk} hands the
     * batches.
     */
    public static List<KeyValue> records(FileSystem fs, Path dir, TopicPartition tp) throws IOException {
        LocalLog log = open(fs, dir, tp, dir.getParent(), null);
        List<KeyValue> out = new ArrayList<>();
        long from = log.logStartOffset;
        try (BatchDecoder decoder = new BatchDecoder(BatchDecoder.DEFAULT_BUDGET)) {
            walk(fs, log, from, s -> decoder.decode(s, from, log.logEndOffset, new RecordSink() {
                @Override
                public boolean needsRecordFields() {
                    return true;
                }

                @Override
                public void offsetRun(long first, int count, int timestampType) {
                    throw new IllegalStateException("a sink that needs record fields gets records");
                }

                @Override
                public void record(long offset, long timestampMs, int timestampType, byte[] buf, int keyOff,
                                   int keyLen, int valueOff, int valueLen) {
                    out.add(new KeyValue(offset, keyLen < 0 ? null : Arrays.copyOfRange(buf, keyOff, keyOff + keyLen),
                        valueLen < 0 ? null : Arrays.copyOfRange(buf, valueOff, valueOff + valueLen)));
                }

                @Override
                public void headers(int count) {
                }

                @Override
                public void header(byte[] buf, int keyOff, int keyLen, int valueOff, int valueLen) {
                }
            }));
        }
        return out;
    }

    /** Collects each record's offset and value (a copy: the decoder reuses its buffers). */
    static final class ValueSink implements RecordSink {
        final List<Long> offsets = new ArrayList<>();
        final List<byte[]> values = new ArrayList<>();

        @Override
        public boolean needsRecordFields() {
            return true;
        }

        @Override
        public void offsetRun(long first, int count, int timestampType) {
            throw new IllegalStateException("a sink that needs record fields gets records, not offset runs");
        }

        @Override
        public void record(long offset, long timestampMs, int timestampType, byte[] buf, int keyOff, int keyLen,
                           int valueOff, int valueLen) {
            offsets.add(offset);
            values.add(valueLen < 0 ? null : Arrays.copyOfRange(buf, valueOff, valueOff + valueLen));
        }

        @Override
        public void headers(int count) {
        }

        @Override
        public void header(byte[] buf, int keyOff, int keyLen, int valueOff, int valueLen) {
        }
    }
}
