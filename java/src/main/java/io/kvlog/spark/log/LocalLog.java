package io.kvlog.spark.log;

import java.io.IOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * One partition's local log as a reader opens it, read-only: its segments, log start offset, log end offset, and
 * for read_committed where reads end and the aborted transactions. Knows nothing of tiers: a tiered topic's reader
 * ({@code read.PartitionLog}) puts the remote history in front of it, as Kafka's {@code UnifiedLog} does over its
 * {@code LocalLog}; the metadata replays and the sink's planning open it alone.
 */
public final class LocalLog {
    public final SegmentList segments;
    public final long logStartOffset;
    public final long logEndOffset;
    /** Where reads end: the log end offset, or the last stable offset for read_committed. */
    public final long readableEnd;
    public final AbortedTransactions aborted;
    /** The transaction replay of a read_committed open (null otherwise). */
    public final TransactionScan transactions;

    private LocalLog(SegmentList segments, long start, long end, TransactionScan txns) {
        this.segments = segments;
        this.logStartOffset = start;
        this.logEndOffset = end;
        this.readableEnd = txns == null ? end : Math.min(end, txns.lastStableOffset);
        this.aborted = txns == null ? AbortedTransactions.NONE : txns.aborted;
        this.transactions = txns;
    }

    /**
     * {@code durableEnd} is the larger of the partition's high watermark and recovery point checkpoints (-1 when
     * the directory has neither): offsets below it were written and flushed, so a log whose batches end earlier
     * is damaged, not torn. Its end stays there and the read fails (or skips) at the damaged batch, as the Python
     * source's does. With {@code skipDamage} a last segment whose batch headers cannot be walked to its end
     * ends the log at that evidence (or its base offset): its readers skip it, as the Python source's do.
     *
     * <p>In a data directory governed by {@link CommittedOffsets}, {@code committed} is the partition's committed
     * range (null: the directory is not governed). Segments at or past the committed end are a write in progress
     * or a failed one's leftovers and are not part of the log; the log ends at the committed end (a log whose
     * batches end earlier is damaged: the end was published after the bytes were written) and starts no earlier
     * than the committed start (an overwrite moves it).
     */
    public static LocalLog open(FileSystem fs, Path dir, long checkpointedStart, long durableEnd, boolean skipDamage,
                         boolean mayBeDense, int chunkBytes, boolean readCommitted, boolean headersOnly,
                         CommittedOffsets.Range committed) throws IOException {
        return of(fs, segments(fs, dir, mayBeDense, committed), checkpointedStart, durableEnd, skipDamage, chunkBytes,
            readCommitted, headersOnly, committed);
    }

    /** The segments of the partition in {@code dir} that are part of its log: below the committed end, if any. */
    public static SegmentList segments(FileSystem fs, Path dir, boolean mayBeDense, CommittedOffsets.Range committed)
            throws IOException {
        SegmentList segs = SegmentList.list(fs, dir, mayBeDense);
        return committed != null ? segs.below(committed.end()) : segs;
    }

    /** The log of {@code segs} ({@link #segments}), as {@link #open} opens it. */
    public static LocalLog of(FileSystem fs, SegmentList segs, long checkpointedStart, long durableEnd, boolean skipDamage,
                       int chunkBytes, boolean readCommitted, boolean headersOnly, CommittedOffsets.Range committed)
            throws IOException {
        if (committed != null) {
            checkpointedStart = Math.max(checkpointedStart, committed.start());
            durableEnd = Math.max(durableEnd, committed.end());
        }
        if (segs.bases.length == 0) {
            long at = committed != null ? Math.max(checkpointedStart, committed.end()) : checkpointedStart;
            return new LocalLog(segs, at, at, null);
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
        return new LocalLog(segs, start, end, txns);
    }
}
