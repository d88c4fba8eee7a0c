package io.kvlog.spark.read;

import io.kvlog.spark.format.RecordBatchV2Decoder;
import io.kvlog.spark.log.AbortedTransactions;
import io.kvlog.spark.log.BatchDecoder;
import io.kvlog.spark.log.BrokerFiles;
import io.kvlog.spark.log.CommittedOffsets;
import io.kvlog.spark.log.CorruptLogException;
import io.kvlog.spark.log.LocalLog;
import io.kvlog.spark.log.SegmentList;
import io.kvlog.spark.log.SegmentStream;
import io.kvlog.spark.log.TimeIndexLookup;
import io.kvlog.spark.log.TopicPartition;
import io.kvlog.spark.log.TxnIndexFile;
import io.kvlog.spark.metadata.RemoteLogMetadataReplay;
import io.kvlog.spark.tiered.RemoteLayout;
import io.kvlog.spark.tiered.RemoteSegmentException;
import io.kvlog.spark.tiered.TieredLineage;
import io.kvlog.spark.tiered.TieredSource;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * What the driver needs of one partition log: its segments, log start offset, log end offset, time search; a
 * tiered topic's remote history in front of its {@link LocalLog}.
 */
final class PartitionLog {
    final TopicPartition tp;
    final SegmentList segments;
    final long logStartOffset;
    final long logEndOffset;
    /** Where reads end: the log end offset, or the last stable offset for read_committed. */
    final long readableEnd;
    final AbortedTransactions aborted;
    /** A tiered topic's remote history below its local segments ({@link TieredLineage}), in offset order; else empty. */
    final List<TieredLineage.Piece> remote;
    private final RemoteLayout layout;
    private final FileSystem fs;
    private final int chunkBytes;
    private final boolean headersOnly;

    private PartitionLog(FileSystem fs, TopicPartition tp, LocalLog local, int chunkBytes, boolean headersOnly) {
        this(fs, tp, local.segments, local.logStartOffset, local.logEndOffset, chunkBytes, headersOnly,
            local.readableEnd, local.aborted, List.of(), null);
    }

    private PartitionLog(FileSystem fs, TopicPartition tp, SegmentList segments, long start, long end, int chunkBytes,
                         boolean headersOnly, long readableEnd, AbortedTransactions aborted,
                         List<TieredLineage.Piece> remote, RemoteLayout layout) {
        this.headersOnly = headersOnly;
        this.fs = fs;
        this.readableEnd = readableEnd;
        this.aborted = aborted;
        this.tp = tp;
        this.segments = segments;
        this.logStartOffset = start;
        this.logEndOffset = end;
        this.chunkBytes = chunkBytes;
        this.remote = remote;
        this.layout = layout;
    }

    /** This log read no further than {@code end} (a cluster's committed end of the partition). */
    PartitionLog cappedAt(long end) {
        return new PartitionLog(fs, tp, segments, logStartOffset, logEndOffset, chunkBytes, headersOnly,
            Math.min(readableEnd, Math.max(end, logStartOffset)), aborted, remote, layout);
    }

    /**
     * The partition's local log ({@link LocalLog#open}, where the arguments are described), and for a tiered topic
     * when {@code tiered} is not null (KIP-405) the remote pieces its {@code __remote_log_metadata} and
     * {@code leader-epoch-checkpoint} give ({@link TieredLineage}) before the local segments; the log starts at the
     * first piece, and, without local segments, ends at the last. For read_committed, the aborted transactions of
     * the remote history come from its segments' {@code .txnindex} (as a broker's remote fetch collects them), and
     * a local ABORT marker of a transaction begun remotely takes its span from its local segment's
     * {@code .txnindex}.
     */
    static PartitionLog open(FileSystem fs, Path dir, TopicPartition tp, long checkpointedStart, long durableEnd,
                             boolean skipDamage, boolean mayBeDense, int chunkBytes, boolean readCommitted,
                             boolean headersOnly, CommittedOffsets.Range committed, TieredSource tiered)
            throws IOException {
        SegmentList segs = LocalLog.segments(fs, dir, mayBeDense, committed);
        List<TieredLineage.Piece> pieces = List.of();
        if (tiered != null) {
            List<RemoteLogMetadataReplay.Segment> remoteSegs = tiered.segmentsOf(fs, dir, tp);
            if (!remoteSegs.isEmpty()) {
                List<long[]> epochs = BrokerFiles.readLeaderEpochs(fs, dir);
                long logStart = committed != null ? Math.max(checkpointedStart, committed.start()) : checkpointedStart;
                pieces = TieredLineage.plan(remoteSegs, epochs == null ? List.of() : epochs, logStart,
                    segs.bases.length > 0 ? segs.bases[0] : null);
                refuseMidSegmentPieces(pieces);
            }
        }
        if (segs.bases.length == 0 && !pieces.isEmpty()) {
            long start = pieces.get(0).start();
            long end = pieces.get(pieces.size() - 1).end();
            AbortedTransactions aborted = AbortedTransactions.NONE;
            if (readCommitted) {
                aborted = new AbortedTransactions();
                remoteAborts(tiered.layout, pieces, aborted);
            }
            return new PartitionLog(fs, tp, segs, start, end, chunkBytes, headersOnly, end, aborted, pieces,
                tiered.layout);
        }
        LocalLog local = LocalLog.of(fs, segs, checkpointedStart, durableEnd, skipDamage, chunkBytes, readCommitted,
            headersOnly, committed);
        if (pieces.isEmpty()) {
            return new PartitionLog(fs, tp, local, chunkBytes, headersOnly);
        }
        long start = committed != null ? Math.min(pieces.get(0).start(), local.logEndOffset) : pieces.get(0).start();
        AbortedTransactions aborted = local.aborted;
        if (local.transactions != null) {
            remoteAborts(tiered.layout, pieces, aborted);
            // transactions begun in the remote history: the marker segment's index says where
            for (long[] orphan : local.transactions.orphanAborts) {
                for (long[] e : TxnIndexFile.entries(fs, segs.path(segs.segmentFor(orphan[1])))) {
                    if (e[0] == orphan[0] && e[2] == orphan[1]) {
                        aborted.add(e[0], e[1], e[2]);
                    }
                }
            }
        }
        return new PartitionLog(fs, tp, segs, start, local.logEndOffset, chunkBytes, headersOnly, local.readableEnd,
            aborted, pieces, tiered.layout);
    }

    /**
     * A piece that would start past its segment's first batch (two segments of one epoch overlapping, which the
     * broker's own replay prevents) is refused, as the Python view refuses it ({@code kvlog.tiered.view}): both
     * engines read a remote segment from its start only, so they answer alike.
     */
    static void refuseMidSegmentPieces(List<TieredLineage.Piece> pieces) {
        for (int i = 1; i < pieces.size(); i++) {
            TieredLineage.Piece prev = pieces.get(i - 1);
            TieredLineage.Piece next = pieces.get(i);
            if (next.start() != next.segment().start && next.segment() != prev.segment()) {
                throw new RemoteSegmentException(TieredLineage.describe(next.segment()) + " overlaps "
                    + TieredLineage.describe(prev.segment()) + " in the lineage and would be read from offset "
                    + next.start() + ", past its first batch: kvlog reads a remote segment from its start only");
            }
        }
    }

    /** The aborted transactions whose ABORT marker lies in a remote piece, from its segment's {@code .txnindex}. */
    private static void remoteAborts(RemoteLayout layout, List<TieredLineage.Piece> pieces,
                                     AbortedTransactions into) throws IOException {
        for (TieredLineage.Piece p : pieces) {
            if (p.segment().txnIndexEmpty) {
                continue;
            }
            for (long[] e : TxnIndexFile.entries(layout.fs(), layout.logFile(p.segment()))) {
                if (e[2] >= p.start() && e[2] < p.end()) {
                    into.add(e[0], e[1], e[2]);
                }
            }
        }
    }

    /** The first offset the local segments serve (the log end when there are none). */
    long localStart() {
        return segments.bases.length > 0 ? Math.max(segments.bases[0], logStartOffset) : logEndOffset;
    }

    /**
     * The splits of offsets {@code [s, e)}: one per remote piece it overlaps (reading the remote segment's files,
     * up to the piece's end), then the local segments' range, as before tiering.
     */
    List<LogRange> ranges(long s, long e, boolean skipDamage) throws IOException {
        List<LogRange> out = new ArrayList<>();
        for (TieredLineage.Piece p : remote) {
            long lo = Math.max(s, p.start());
            long hi = Math.min(e, p.end());
            if (lo < hi) {
                RemoteLogMetadataReplay.Segment seg = p.segment();
                out.add(new LogRange(tp.topic(), tp.partition(), layout.segments(seg),
                    lo, hi, aborted.within(lo, hi), skipDamage, seg.end + 1));
            }
        }
        long lo = remote.isEmpty() ? s : Math.max(s, localStart());
        if (remote.isEmpty() || lo < e) {
            out.add(new LogRange(tp.topic(), tp.partition(), segments, lo, Math.max(lo, e), aborted.within(lo, e),
                skipDamage, logEndOffset));
        }
        return out;
    }

    /** A segment file to search, with the offsets {@code [lo, hi)} it serves. */
    private record Span(FileSystem fs, Path file, long base, long lo, long hi) {
    }

    /** The remote pieces' segment files, then the local segments from the log start on. */
    private List<Span> spans() throws IOException {
        return spans(false);
    }

    /**
     * As {@link #spans()}, or with {@code wholeFiles} every segment file from its start, the log start offset
     * aside: the local segments wholly below it that are still in the directory, and the batches below it in the
     * segment (or first remote piece) holding it, as a broker's segments hold them until retention deletes them.
     */
    private List<Span> spans(boolean wholeFiles) throws IOException {
        List<Span> out = new ArrayList<>();
        for (int k = 0; k < remote.size(); k++) {
            TieredLineage.Piece p = remote.get(k);
            long from = wholeFiles && k == 0 ? p.segment().start : p.start();
            out.add(new Span(layout.fs(), layout.logFile(p.segment()), p.segment().start, from, p.end()));
        }
        long lo = remote.isEmpty() ? logStartOffset : localStart();
        if (lo < logEndOffset || remote.isEmpty()) {
            for (int i = wholeFiles ? 0 : segments.segmentFor(lo); i < segments.bases.length; i++) {
                out.add(new Span(fs, segments.path(i), segments.bases[i], wholeFiles ? segments.bases[i] : lo,
                    logEndOffset));
            }
        }
        return out;
    }

    /**
     * The earliest offset in [log start, log end) whose record timestamp is at or after {@code ts}; -1 if none
     * (the largest-timestamp target -3: {@link #maxTimestampOffset}, which may answer below the log start).
     * Control records count, as in Kafka's ListOffsets ({@code LogSegment.findOffsetByTimestamp}): a transaction
     * marker answers when it is the first entry at or after {@code ts} (its timestamp is the broker's clock when
     * the transaction ended), and a read from there holds the data records that follow it. Each segment is
     * searched from where its time index proves every earlier record is older, reading batch headers (max
     * timestamps) until one may hold the answer. Nothing at or past the log end answers: the last
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
            return maxTimestampOffset();
        }
        return searchTimestamp(ts);
    }

    static final long EARLIEST_TIMESTAMP = -2;
    static final long LATEST_TIMESTAMP = -1;
    static final long MAX_TIMESTAMP = -3;

    /**
     * Kafka's answer to the largest-timestamp target ({@code UnifiedLog.fetchOffsetByTimestamp}, MAX_TIMESTAMP,
     * 3.8+): the first segment whose max timestamp is the largest, in it the first batch reaching that timestamp
     * (control batches too: a COMMIT/ABORT marker, a KRaft LeaderChange), then that batch's first record carrying
     * it ({@code RecordBatch.offsetOfMaxTimestamp}: a control record's own offset, not its batch's base offset).
     * The first batch of the log reaching the largest timestamp is that batch. The log start offset plays no part:
     * Kafka's segments count the batches below it still in their files, and the answer may lie below it. -1: no
     * batch carries a timestamp, or no record its batch's max timestamp. A batch that reaches the log end is not
     * part of the log (as the Python source's view ends before it).
     */
    private long maxTimestampOffset() throws IOException {
        long max = -1;
        Span holder = null;
        long position = -1;
        scan:
        for (Span sp : spans(true)) {
            try (SegmentStream s = new SegmentStream(sp.fs(), sp.file(), 0, chunkBytes, headersOnly)) {
                while (s.next()) {
                    if (BatchDecoder.lastOffset(s) < sp.lo()) {
                        continue;
                    }
                    if (BatchDecoder.lastOffset(s) >= sp.hi()) {
                        if (sp.hi() == logEndOffset) {
                            break scan; // past the end of the log: the segment grew beyond it
                        }
                        break; // a remote piece ends inside this batch: the next piece or the local log serves the rest
                    }
                    if (BatchDecoder.magic(s) < 2) {
                        throw new UnsupportedOperationException("the largest-timestamp target (-3) needs record "
                            + "batches of magic 2; " + tp + " holds older message sets: read it with the Python "
                            + "source (format kvlog_python)");
                    }
                    long batchMax = RecordBatchV2Decoder.maxTimestamp(s.buffer(), s.batchStart());
                    if (batchMax > max) { // strictly: the first batch reaching the maximum, as Kafka's
                        max = batchMax;
                        holder = sp;
                        position = s.position();
                    }
                }
            }
        }
        if (holder == null) {
            return -1;
        }
        try (BatchDecoder decoder = new BatchDecoder(BatchDecoder.DEFAULT_BUDGET);
             SegmentStream s = new SegmentStream(holder.fs(), holder.file(), position, chunkBytes, headersOnly)) {
            if (!s.next()) {
                throw new CorruptLogException(holder.file().toString(), position, "the batch holding the largest "
                    + "timestamp is gone");
            }
            TimestampSearch search = TimestampSearch.exactly(max);
            decoder.decode(s, holder.lo(), holder.hi(), search);
            return search.found;
        }
    }

    private long searchTimestamp(long ts) throws IOException {
        // Kafka's ListOffsets (UnifiedLog.searchOffsetInLocalLog): the first local segment whose largest timestamp
        // reaches the target answers, or nothing does; a segment without a timestamp (an empty one, which compaction
        // leaves) counts by its file's modification time (LogSegment.largestTimestamp). As Log.offset_for_timestamp.
        List<Span> all = spans();
        try (BatchDecoder decoder = new BatchDecoder(BatchDecoder.DEFAULT_BUDGET)) {
            for (int k = 0; k < all.size(); k++) {
                Span sp = all.get(k);
                TimestampSearch search = new TimestampSearch(ts, sp.lo());
                FileStatus status = sp.fs().getFileStatus(sp.file());
                TimeIndexLookup.Hint hint = TimeIndexLookup.hintFor(sp.fs(), sp.file(), sp.base(), ts, status.getLen());
                boolean checked = hint.offset() < 0 || hint.offset() >= sp.hi(); // (past the span: not this index's)
                long from = hint.offset() >= sp.hi() ? 0 : hint.position();
                boolean reached; // a batch of the segment reaches the target: the search ends in this segment
                boolean stamped; // the segment has a timestamp (else Kafka takes the file's mtime for its largest)
                restart:
                while (true) {
                    reached = false;
                    stamped = from > 0; // a time index entry below the target was found: the segment has timestamps
                    try (SegmentStream s = new SegmentStream(sp.fs(), sp.file(), from, chunkBytes, headersOnly)) {
                        while (s.next()) {
                            if (!checked && BatchDecoder.lastOffset(s) >= hint.offset()) {
                                checked = true; // the time index's claim, checked on the batch it names
                                if (BatchDecoder.baseOffset(s) > hint.offset() || BatchDecoder.magic(s) < 2
                                        || RecordBatchV2Decoder.maxTimestamp(s.buffer(), s.batchStart())
                                        != hint.timestamp()) {
                                    from = 0;
                                    continue restart;
                                }
                            }
                            long batchMax = BatchDecoder.magic(s) >= 2
                                ? RecordBatchV2Decoder.maxTimestamp(s.buffer(), s.batchStart()) : Long.MIN_VALUE;
                            stamped |= batchMax >= 0 || BatchDecoder.magic(s) < 2;
                            if (BatchDecoder.lastOffset(s) < sp.lo()) {
                                reached |= batchMax >= ts; // below the log start: still the segment's largest
                                continue;
                            }
                            if (BatchDecoder.baseOffset(s) >= sp.hi()) {
                                if (sp.hi() == logEndOffset) {
                                    return -1; // past the end of the log: the segment grew beyond it
                                }
                                break;
                            }
                            if (BatchDecoder.magic(s) >= 2 && batchMax < ts) {
                                continue;
                            }
                            reached |= BatchDecoder.magic(s) >= 2;
                            decoder.decode(s, sp.lo(), sp.hi(), search);
                            if (search.found >= 0) {
                                return search.found;
                            }
                        }
                    }
                    break;
                }
                boolean local = k >= remote.size(); // (tiered storage's remote search goes on to the next segment)
                if (local && (reached || !stamped && status.getModificationTime() >= ts)) {
                    return -1;
                }
            }
        }
        return -1;
    }
}
