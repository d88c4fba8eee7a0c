package io.kvlog.spark.read;

import io.kvlog.spark.format.Bytes;
import io.kvlog.spark.format.RecordBatchV2Decoder;
import io.kvlog.spark.format.RecordSink;
import io.kvlog.spark.fs.LogFileSystems;
import io.kvlog.spark.log.BatchDecoder;
import io.kvlog.spark.log.CorruptLogException;
import io.kvlog.spark.log.OffsetIndexLookup;
import io.kvlog.spark.log.RemoteFiles;
import io.kvlog.spark.log.SegmentList;
import io.kvlog.spark.log.SegmentStream;
import io.kvlog.spark.log.TransactionScan;
import io.kvlog.spark.tiered.RemoteSegmentCheck;
import io.kvlog.spark.typed.TypedRead;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads one {@link LogRange}: its segments in offset order, streamed in chunks, into columnar batches of the
 * requested columns, or, for a pushed-down aggregate, into one batch of partial results.
 */
final class LogRangeReader implements PartitionReader<ColumnarBatch> {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LogRangeReader.class);
    private final LogRange range;
    private final FileSystem fs;
    private final int chunkBytes;
    private final int maxRows;
    private final ColumnSink sink; // null when aggregating
    private final AggregateSink aggregate; // null when reading rows
    private final RecordSink target;
    private boolean aggregated;
    /** Offsets-only columns: batches are served from their headers (see {@link SegmentStream}). */
    private final boolean headersOnly;
    private final BatchDecoder decoder = new BatchDecoder(BatchDecoder.DEFAULT_BUDGET);
    private int segment;
    private long closedBytes; // read by streams already closed
    private SegmentStream stream;
    private boolean done;
    private long previousLast = Long.MIN_VALUE;

    LogRangeReader(LogRange range, StructType required, PushedAggregation aggregation, Configuration conf,
                   int chunkBytes, int maxRows, boolean verifyChecksums) throws IOException {
        this(range, required, aggregation, conf, chunkBytes, maxRows, verifyChecksums, null);
    }

    LogRangeReader(LogRange range, StructType required, PushedAggregation aggregation, Configuration conf,
                   int chunkBytes, int maxRows, boolean verifyChecksums, TypedRead typed) throws IOException {
        this.range = range;
        RemoteFiles files = range.segments().files();
        this.fs = files != null ? files.fileSystem(conf) : LogFileSystems.of(new Path(range.segments().dir), conf);
        this.chunkBytes = chunkBytes;
        this.maxRows = maxRows;
        this.sink = aggregation == null
            ? new ColumnSink(required, range.topic(), range.partition(), maxRows, typed) : null;
        this.aggregate = aggregation == null ? null : new AggregateSink(aggregation, range.topic(), range.partition());
        this.target = sink != null ? sink : aggregate;
        // skipping damage needs every batch's CRC checked, so that a damaged batch is found where the Python source
        // finds it (a header-served batch would be counted without its records being proven)
        this.headersOnly = !verifyChecksums && !range.skipDamage() && !target.needsRecordFields();
        this.segment = range.segments().segmentFor(range.start());
        this.done = range.size() <= 0 || range.segments().bases.length == 0;
    }

    @Override
    public boolean next() throws IOException {
        if (aggregate != null) {
            if (aggregated) {
                return false;
            }
            while (step()) {
                // the whole range goes into one row of partial results
            }
            aggregated = true;
            return aggregate.hasRow();
        }
        sink.reset();
        while (sink.rows() < maxRows && step()) {
            // until the batch is full or the range ends
        }
        return sink.rows() > 0;
    }

    /**
     * Aggregates the whole range unless that takes more than {@code maxBatches} batches or {@code maxBytes} bytes
     * read; returns the batches it took, or -1 when it stopped at a limit.
     */
    long aggregateWithin(long maxBatches, long maxBytes) throws IOException {
        long batches = 0;
        while (step()) {
            if (++batches > maxBatches || closedBytes + (stream == null ? 0 : stream.bytesRead()) > maxBytes) {
                return -1;
            }
        }
        aggregated = true;
        return batches;
    }

    /** Bytes read from the range's segment files so far. */
    long bytesRead() {
        return closedBytes + (stream == null ? 0 : stream.bytesRead());
    }

    /** The aggregates of a range read in aggregate mode. */
    AggregateSink aggregate() {
        return aggregate;
    }

    /** Reads the next batch of the range into the sink; false once the range is done. */
    private boolean step() throws IOException {
        while (true) {
            try {
                return stepOnce();
            } catch (CorruptLogException e) {
                if (!range.skipDamage() || stream == null) {
                    throw e;
                }
                // failOnDataLoss=false: the rest of this segment file is skipped, reported, and the read goes on
                // with the next segment (kvlog.damage: the Python source skips the same stretch)
                long next = segment + 1 < range.segments().bases.length ? range.segments().bases[segment + 1]
                    : range.end();
                LOG.warn("skipping offsets from " + Math.max(previousLast + 1, range.start())
                    + " up to " + next + " of " + range.topic() + "-" + range.partition()
                    + " (failOnDataLoss=false): " + e.getMessage());
                closedBytes += stream.bytesRead();
                stream.close();
                stream = null;
                segment++;
                previousLast = Long.MIN_VALUE;
            }
        }
    }

    private boolean stepOnce() throws IOException {
        while (!done) {
            if (stream == null && !open()) {
                done = true;
                break;
            }
            if (!stream.next()) {
                closedBytes += stream.bytesRead();
                stream.close();
                stream = null;
                segment++;
                continue;
            }
            long last = BatchDecoder.lastOffset(stream);
            long[] bases = range.segments().bases;
            long bound = segment + 1 < bases.length ? bases[segment + 1] : range.logEnd();
            if (last >= bound) { // offsets lie outside every CRC: a batch past its segment or the log end is damage
                throw new CorruptLogException(stream.file(), stream.position(), "batch last offset " + last
                    + " is past " + (segment + 1 < bases.length ? "the next segment's base offset " : "the log end offset ")
                    + bound);
            }
            if (BatchDecoder.magic(stream) >= 2) {
                long base = BatchDecoder.baseOffset(stream);
                if (base <= previousLast || last < base) { // base offset and length are outside the CRC: cross-check
                    throw new CorruptLogException(stream.file(), stream.position(), "batch offsets " + base + ".." + last
                        + " do not follow the previous batch's last offset " + previousLast);
                }
                if (range.segments().dense && previousLast != Long.MIN_VALUE && base != previousLast + 1) {
                    throw new CorruptLogException(stream.file(), stream.position(), "batch base offset " + base
                        + " leaves a gap after offset " + previousLast + " in a log that was never compacted");
                }
                previousLast = last;
            }
            if (last < range.start()) {
                continue;
            }
            if (!abortedData(stream)) {
                decoder.decode(stream, range.start(), range.end(), target);
            }
            if (last >= range.end() - 1) {
                done = true;
            }
            return true;
        }
        return false;
    }

    /** A transactional data batch of an aborted transaction (only read_committed ranges carry any). */
    private boolean abortedData(SegmentStream s) {
        if (range.aborted().isEmpty() || BatchDecoder.magic(s) < 2) {
            return false;
        }
        byte[] b = s.buffer();
        int p = s.batchStart();
        int attributes = Bytes.int16(b, p + RecordBatchV2Decoder.ATTRIBUTES_OFFSET);
        return (attributes & 0x30) == 0x10
            && range.aborted().aborted(Bytes.int64(b, p + TransactionScan.PRODUCER_ID_OFFSET), Bytes.int64(b, p));
    }

    private boolean open() throws IOException {
        SegmentList segs = range.segments();
        if (segment >= segs.bases.length || segs.bases[segment] >= range.end()) {
            return false;
        }
        Path p = segs.path(segment);
        if (segs.isRemote()) { // a remote piece: its metadata's offsets checked against the object first
            RemoteSegmentCheck.check(fs, p, segs.bases[segment], range.logEnd() - 1);
        }
        long from = 0;
        if (segs.bases[segment] < range.start()) {
            long size = fs.getFileStatus(p).getLen();
            from = OffsetIndexLookup.positionFor(fs, p, segs.bases[segment], range.start(), size);
        }
        stream = new SegmentStream(fs, p, from, chunkBytes, headersOnly);
        return true;
    }

    @Override
    public ColumnarBatch get() {
        return aggregate != null ? aggregate.result() : sink.batch();
    }

    @Override
    public void close() throws IOException {
        try {
            if (stream != null) {
                stream.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            decoder.close();
            if (sink != null) {
                sink.close();
            }
            if (aggregate != null) {
                aggregate.close();
            }
        }
    }
}
