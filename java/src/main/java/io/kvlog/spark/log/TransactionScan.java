package io.kvlog.spark.log;

import io.kvlog.spark.format.BatchFormatException;
import io.kvlog.spark.format.Bytes;
import io.kvlog.spark.format.Decompressor;
import io.kvlog.spark.format.PayloadBuffer;
import io.kvlog.spark.format.RecordBatchV2Decoder;
import io.kvlog.spark.format.VarintCursor;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;

/**
 * Replays a partition's transactional batches and markers from its first segment, as a broker's producer state
 * does: which transactions were aborted (and where), and the last stable offset (the first offset of the oldest
 * transaction still open, else the log end offset).
 */
public final class TransactionScan {
    public static final int PRODUCER_ID_OFFSET = 43;
    private static final int ABORT = 0;

    final AbortedTransactions aborted = new AbortedTransactions();
    long lastStableOffset;
    /**
     * ABORT markers of transactions whose first batch the scan did not see ({producer id, marker offset}): in a
     * tiered topic, transactions that began in its remote history (their span is in the marker segment's
     * {@code .txnindex}).
     */
    public final java.util.List<long[]> orphanAborts = new java.util.ArrayList<>();

    private TransactionScan() {
    }

    static TransactionScan run(FileSystem fs, SegmentList segments, long logEndOffset, int chunkBytes,
                               boolean headersOnly) throws IOException {
        TransactionScan scan = new TransactionScan();
        Map<Long, Long> open = new HashMap<>();
        VarintCursor cursor = new VarintCursor();
        try (Decompressor decompressor = new Decompressor(BatchDecoder.DEFAULT_BUDGET)) {
            scan.replay(fs, segments, logEndOffset, chunkBytes, headersOnly, open, decompressor, cursor);
        }
        return scan;
    }

    private void replay(FileSystem fs, SegmentList segments, long logEndOffset, int chunkBytes, boolean headersOnly,
                        Map<Long, Long> open, Decompressor decompressor, VarintCursor cursor) throws IOException {
        for (int i = 0; i < segments.bases.length; i++) {
            try (SegmentStream s = new SegmentStream(fs, segments.path(i), 0, chunkBytes, headersOnly)) {
                while (s.next(i == segments.bases.length - 1)) {
                    byte[] b = s.buffer();
                    int p = s.batchStart();
                    if (b[p + 16] < 2) {
                        continue;
                    }
                    long base = Bytes.int64(b, p);
                    if (base >= logEndOffset) {
                        break;
                    }
                    int attributes = Bytes.int16(b, p + RecordBatchV2Decoder.ATTRIBUTES_OFFSET);
                    if ((attributes & 0x10) == 0) {
                        continue;
                    }
                    long pid = Bytes.int64(b, p + PRODUCER_ID_OFFSET);
                    if ((attributes & 0x20) == 0) {
                        open.putIfAbsent(pid, base);
                        continue;
                    }
                    int type;
                    s.fill(); // a marker is read whole and its CRC checked
                    b = s.buffer();
                    p = s.batchStart();
                    try {
                        RecordBatchV2Decoder.checkCrc(b, p, s.batchSize());
                        type = markerType(b, p, s.batchSize(), attributes & 0x07, decompressor, cursor);
                    } catch (BatchFormatException e) {
                        throw new CorruptLogException(s.file(), s.position(), e.getMessage(), e);
                    }
                    if (type < 0) {
                        continue; // a marker the cleaner emptied: the transaction it ended was cleaned away too (Kafka)
                    }
                    Long first = open.remove(pid);
                    if (type == ABORT && first != null) {
                        aborted.add(pid, first, base);
                    } else if (type == ABORT) {
                        orphanAborts.add(new long[] {pid, base});
                    }
                }
            }
        }
        long lso = logEndOffset;
        for (long first : open.values()) {
            lso = Math.min(lso, first);
        }
        lastStableOffset = lso;
    }

    /** The control type (0 ABORT, 1 COMMIT, ...) from the key of a control batch's first record. */
    private static int markerType(byte[] b, int p, int size, int codec, Decompressor d, VarintCursor c)
            throws BatchFormatException {
        if (Bytes.int32(b, p + RecordBatchV2Decoder.RECORD_COUNT_OFFSET) < 1) {
            return -1;
        }
        if (codec == Decompressor.NONE) {
            c.reset(b, p + RecordBatchV2Decoder.HEADER_SIZE, p + size);
        } else {
            PayloadBuffer out = d.decompress(codec, 2, b, p + RecordBatchV2Decoder.HEADER_SIZE,
                size - RecordBatchV2Decoder.HEADER_SIZE);
            c.reset(out.data, 0, out.size);
        }
        int length = c.varint();
        if (length < 1 || length > c.remaining()) {
            throw new BatchFormatException("control record length " + length + " exceeds the bytes remaining");
        }
        c.end = c.pos + length;
        c.skip(1);
        c.varlong();
        c.varint();
        int keyLen = c.length("control key");
        if (keyLen < 4) {
            throw new BatchFormatException("control record key of " + keyLen + " bytes is shorter than 4");
        }
        return Bytes.int16(c.buf, c.pos + 2);
    }
}
