package io.kvlog.spark;

import java.io.IOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** What the driver needs of one partition log: its segments, log start offset, log end offset, time search. */
final class PartitionLog {
    final TopicPartition tp;
    final SegmentList segments;
    final long logStartOffset;
    final long logEndOffset;
    /** Where reads end: the log end offset, or the last stable offset for read_committed. */
    final long readableEnd;
    final AbortedTransactions aborted;
    private final FileSystem fs;
    private final int chunkBytes;
    private final boolean headersOnly;

    private PartitionLog(FileSystem fs, TopicPartition tp, SegmentList segments, long start, long end, int chunkBytes,
                         boolean headersOnly, TransactionScan txns) {
        this.headersOnly = headersOnly;
        this.fs = fs;
        this.readableEnd = txns == null ? end : Math.min(end, txns.lastStableOffset);
        this.aborted = txns == null ? AbortedTransactions.NONE : txns.aborted;
        this.tp = tp;
        this.segments = segments;
        this.logStartOffset = start;
        this.logEndOffset = end;
        this.chunkBytes = chunkBytes;
    }

    /**
     * {@code durableEnd} is the larger of the partition's high watermark and recovery point checkpoints (-1 when
     * the directory has neither): offsets below it were written and flushed, so a log whose batches end earlier
     * is damaged, not torn. Its end stays there and the read fails (or skips) at the damaged batch, as the Python
     * source's does. With {@code skipDamage} a last segment whose batch headers cannot be walked to its end
     * ends the log at that evidence (or its base offset): its readers skip it, as the Python source's do.
     */
    static PartitionLog open(FileSystem fs, Path dir, TopicPartition tp, long checkpointedStart, long durableEnd,
                             boolean skipDamage, boolean mayBeDense, int chunkBytes, boolean readCommitted,
                             boolean headersOnly) throws IOException {
        return open(fs, dir, tp, checkpointedStart, durableEnd, skipDamage, mayBeDense, chunkBytes, readCommitted,
            headersOnly, null);
    }

    /**
     * As above, in a data directory governed by {@link CommittedOffsets}: {@code committed} is the partition's
     * committed range (null: the directory is not governed). Segments at or past the committed end are a write in
     * progress or a failed one's leftovers and are not part of the log; the log ends at the committed end (a log
     * whose batches end earlier is damaged: the end was published after the bytes were written) and starts no
     * earlier than the committed start (an overwrite moves it).
     */
    static PartitionLog open(FileSystem fs, Path dir, TopicPartition tp, long checkpointedStart, long durableEnd,
                             boolean skipDamage, boolean mayBeDense, int chunkBytes, boolean readCommitted,
                             boolean headersOnly, CommittedOffsets.Range committed) throws IOException {
        SegmentList segs = SegmentList.list(fs, dir, mayBeDense);
        if (committed != null) {
            segs = segs.below(committed.end());
            checkpointedStart = Math.max(checkpointedStart, committed.start());
            durableEnd = Math.max(durableEnd, committed.end());
        }
        if (segs.bases.length == 0) {
            long at = committed != null ? Math.max(checkpointedStart, committed.end()) : checkpointedStart;
            return new PartitionLog(fs, tp, segs, at, at, chunkBytes, headersOnly, null);
        }
        long start = Math.max(checkpointedStart, segs.bases[0]);
        int last = segs.bases.length - 1;
        long end;
        try {
            end = SegmentStream.nextOffset(fs, segs.path(last), segs.bases[last], chunkBytes, headersOnly);
        } catch (CorruptLogException e) {
            if (!skipDamage) {
                throw e;
            }
            end = segs.bases[last];
        }
        end = Math.max(end, durableEnd);
        if (committed != null) {
            end = Math.min(end, committed.end());
            start = Math.min(start, end);
        }
        TransactionScan txns = readCommitted ? TransactionScan.run(fs, segs, end, chunkBytes, headersOnly) : null;
        return new PartitionLog(fs, tp, segs, start, end, chunkBytes, headersOnly, txns);
    }

    /**
     * The earliest offset in [log start, log end) whose record timestamp is at or after {@code ts}; -1 if none.
     * Each segment is searched from where its time index proves every earlier record is older, reading batch
     * headers (max timestamps) until one may hold the answer. Nothing at or past the log end answers: the last
     * segment's file may be longer than the log (a committed end inside it, a writer appending meanwhile, a backup
     * run's cut segment that a later run copied longer), and its time index may reach past the end too.
     */
    long offsetForTimestamp(long ts) throws IOException {
        if (ts == EARLIEST_TIMESTAMP) { // Kafka's ListOffsets targets, as the Python source reads them
            return logStartOffset;
        }
        if (ts == LATEST_TIMESTAMP) {
            return logEndOffset;
        }
        if (ts == MAX_TIMESTAMP) {
            long max = maxTimestamp();
            return max < 0 ? -1 : offsetForTimestamp(max);
        }
        return searchTimestamp(ts);
    }

    static final long EARLIEST_TIMESTAMP = -2;
    static final long LATEST_TIMESTAMP = -1;
    static final long MAX_TIMESTAMP = -3;

    /**
     * The largest record timestamp of the batches from the log start on (-1: none), from the batch headers. A
     * batch that reaches the log end is not part of the log (as the Python source's view ends before it).
     */
    private long maxTimestamp() throws IOException {
        long max = -1;
        for (int i = segments.segmentFor(logStartOffset); i < segments.bases.length; i++) {
            try (SegmentStream s = new SegmentStream(fs, segments.path(i), 0, chunkBytes, headersOnly)) {
                while (s.next()) {
                    if (BatchDecoder.lastOffset(s) < logStartOffset) {
                        continue;
                    }
                    if (BatchDecoder.lastOffset(s) >= logEndOffset) {
                        return max; // past the end of the log: the segment grew beyond it
                    }
                    if (BatchDecoder.magic(s) < 2) {
                        throw new UnsupportedOperationException("the largest-timestamp target (-3) needs record "
                            + "batches of magic 2; " + tp + " holds older message sets: read it with the Python "
                            + "source (format kvlog_python)");
                    }
                    max = Math.max(max, RecordBatchV2Decoder.maxTimestamp(s.buffer(), s.batchStart()));
                }
            }
        }
        return max;
    }

    private long searchTimestamp(long ts) throws IOException {
        TimestampSearch search = new TimestampSearch(ts, logStartOffset);
        try (BatchDecoder decoder = new BatchDecoder(BatchDecoder.DEFAULT_BUDGET)) {
            for (int i = segments.segmentFor(logStartOffset); i < segments.bases.length; i++) {
                Path p = segments.path(i);
                long from = TimeIndexLookup.positionFor(fs, p, segments.bases[i], ts, fs.getFileStatus(p).getLen());
                try (SegmentStream s = new SegmentStream(fs, p, from, chunkBytes, headersOnly)) {
                    while (s.next()) {
                        if (BatchDecoder.lastOffset(s) < logStartOffset) {
                            continue;
                        }
                        if (BatchDecoder.baseOffset(s) >= logEndOffset) {
                            return -1; // past the end of the log: the segment grew beyond it
                        }
                        if (BatchDecoder.magic(s) >= 2
                                && RecordBatchV2Decoder.maxTimestamp(s.buffer(), s.batchStart()) < ts) {
                            continue;
                        }
                        decoder.decode(s, logStartOffset, logEndOffset, search);
                        if (search.found >= 0) {
                            return search.found;
                        }
                    }
                }
            }
        }
        return -1;
    }
}
