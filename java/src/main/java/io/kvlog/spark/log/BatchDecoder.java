package io.kvlog.spark.log;

import io.kvlog.spark.format.BatchFormatException;
import io.kvlog.spark.format.Bytes;
import io.kvlog.spark.format.Decompressor;
import io.kvlog.spark.format.LegacyMessageDecoder;
import io.kvlog.spark.format.RecordBatchV2Decoder;
import io.kvlog.spark.format.RecordSink;
import java.io.IOException;

/** Decodes whatever batch a {@link SegmentStream} stands on, by magic, naming file and position on failure. */
public final class BatchDecoder implements AutoCloseable {
    public static final int DEFAULT_BUDGET = 64 << 20;

    private final RecordBatchV2Decoder v2;
    private final LegacyMessageDecoder legacy;
    private final Decompressor decompressor;

    public BatchDecoder(int budget) {
        Decompressor d = new Decompressor(budget);
        decompressor = d;
        v2 = new RecordBatchV2Decoder(d);
        legacy = new LegacyMessageDecoder(d);
    }

    @Override
    public void close() {
        decompressor.close();
    }

    public static int magic(SegmentStream s) {
        return s.buffer()[s.batchStart() + 16];
    }

    public static long baseOffset(SegmentStream s) {
        return Bytes.int64(s.buffer(), s.batchStart());
    }

    /** The last offset a batch holds (a legacy message's own offset is its last one). */
    public static long lastOffset(SegmentStream s) {
        return magic(s) >= 2 ? RecordBatchV2Decoder.lastOffset(s.buffer(), s.batchStart()) : baseOffset(s);
    }

    /**
     * Emits the records of the batch {@code s} stands on whose offsets are in {@code [start, end)}. A batch read
     * headers-only is served from its header when the sink needs offsets only and the header is self-consistent,
     * else it is read whole first (and its CRC checked, as every batch read whole is).
     */
    public void decode(SegmentStream s, long start, long end, RecordSink sink) throws IOException {
        try {
            if (!s.complete()) {
                if (v2.decodeHeader(s.buffer(), s.batchStart(), s.batchSize(), start, end, sink)) {
                    return;
                }
                s.fill();
            }
            if (magic(s) >= 2) {
                v2.decode(s.buffer(), s.batchStart(), s.batchSize(), start, end, sink);
            } else {
                legacy.decode(s.buffer(), s.batchStart(), s.batchSize(), start, end, sink);
            }
        } catch (BatchFormatException e) {
            throw new CorruptLogException(s.file(), s.position(), e.getMessage(), e);
        }
    }
}
