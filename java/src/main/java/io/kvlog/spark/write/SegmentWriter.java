package io.kvlog.spark.write;

import io.kvlog.spark.format.Bytes;
import io.kvlog.spark.format.RecordBatchV2Decoder;
import io.kvlog.spark.format.RecordBatchV2Encoder;
import io.kvlog.spark.fs.ExclusiveCreate;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;

/**
 * Writes one partition's new segments through a Hadoop {@link FileSystem}: each file is created once and
 * written front to back (no append, no rename, no seek), so any file system Hadoop has a connector for will do.
 *
 * <p>Batches arrive whole, in offset order, contiguous from the start offset. Kafka's rules, as kvlog's
 * {@code Log} applies them to one batch per append:
 * <ul>
 * <li>roll to a new {@code <20-digit base offset>.log} before a batch when the segment holds data and the batch
 *     would take it past {@code segment.bytes}, its offset index is full ({@code segment.index.bytes / 8}
 *     entries), its time index is full ({@code segment.index.bytes / 12} entries less the slot kept for the final
 *     entry) or the batch's last offset is beyond 2^31-1 of the segment's base;</li>
 * <li>before each batch, the segment's max timestamp (and the last offset of the batch that first reached it)
 *     takes in the batch's; then, when more than {@code index.interval.bytes} were written since the last offset
 *     index entry, the batch's <em>last</em> offset maps to the batch's <em>start</em> position (Kafka 2.0 and
 *     later), and the time index gets the max timestamp so far when it grew past its last entry;</li>
 * <li>when a segment is closed (at a roll or at {@link #finish}) the time index gets the segment's max timestamp
 *     if it grew, and both indexes are written at their used size (Kafka trims them when a segment becomes
 *     inactive).</li>
 * </ul>
 * The time-based roll ({@code segment.ms}) is not applied: it depends on the writer's clock. Nothing is made
 * visible here: what readers see and when is the job of the sink's commit protocol.
 */
final class SegmentWriter implements RecordBatchV2Encoder.BatchConsumer, AutoCloseable {
    static final int OFFSET_ENTRY = 8;
    static final int TIME_ENTRY = 12;
    private static final int BUFFER = 256 << 10;

    /** One written segment: {@code [baseOffset, nextOffset)}, its .log size, its max timestamp (-1: none). */
    record Segment(long baseOffset, long nextOffset, long bytes, long maxTimestamp) {
    }

    private final FileSystem fs;
    private final Path dir;
    private final int segmentBytes;
    private final int indexIntervalBytes;
    private final int offsetIndexEntries;
    private final int timeIndexEntries;
    private final List<Segment> done = new ArrayList<>();
    private final List<Path> created = new ArrayList<>();

    private long nextOffset;
    private boolean finished;

    // the open segment (out == null: none)
    private FSDataOutputStream out;
    private long base;
    private int size;
    private long bytesSinceIndexEntry;
    private long maxTimestamp;
    private long offsetOfMaxTimestamp;
    private byte[] offsetIndex = new byte[64 * OFFSET_ENTRY];
    private int offsetEntries;
    private byte[] timeIndex = new byte[64 * TIME_ENTRY];
    private int timeEntries;
    private long lastTimeEntry;

    /**
     * @param fs                 the file system of {@code dir} (a checksummed local one is used raw: no .crc files)
     * @param dir                the partition directory (created when missing)
     * @param startOffset        the base offset of the first batch
     * @param segmentBytes       {@code segment.bytes}
     * @param indexIntervalBytes {@code index.interval.bytes}
     * @param segmentIndexBytes  {@code segment.index.bytes} (at least 12: one entry of either index)
     */
    SegmentWriter(FileSystem fs, Path dir, long startOffset, int segmentBytes, int indexIntervalBytes,
                  int segmentIndexBytes) throws IOException {
        if (startOffset < 0) {
            throw new IllegalArgumentException("start offset must not be negative, got " + startOffset + " for " + dir);
        }
        if (segmentBytes < RecordBatchV2Decoder.HEADER_SIZE) {
            throw new IllegalArgumentException("segment.bytes=" + segmentBytes + " cannot hold a record batch ("
                + RecordBatchV2Decoder.HEADER_SIZE + " bytes at least)");
        }
        if (indexIntervalBytes < 0) {
            throw new IllegalArgumentException("index.interval.bytes must not be negative, got " + indexIntervalBytes);
        }
        if (segmentIndexBytes < TIME_ENTRY) {
            throw new IllegalArgumentException("segment.index.bytes=" + segmentIndexBytes + " cannot hold one index "
                + "entry (" + TIME_ENTRY + " bytes for the time index)");
        }
        this.fs = ExclusiveCreate.raw(fs);
        this.dir = dir;
        this.nextOffset = startOffset;
        this.segmentBytes = segmentBytes;
        this.indexIntervalBytes = indexIntervalBytes;
        this.offsetIndexEntries = segmentIndexBytes / OFFSET_ENTRY;
        this.timeIndexEntries = segmentIndexBytes / TIME_ENTRY;
        ExclusiveCreate.mkdirs(this.fs, dir);
    }

    /** {@code <20-digit offset><suffix>}, Kafka's file name for a segment's files. */
    static String fileName(long baseOffset, String suffix) {
        return String.format("%020d%s", baseOffset, suffix);
    }

    /** The offset the next batch must start at. */
    long nextOffset() {
        return nextOffset;
    }

    /** Appends one whole magic-2 batch {@code b[off, off + len)}, rolling first when Kafka would. */
    @Override
    public void batch(byte[] b, int off, int len) throws IOException {
        if (finished) {
            throw new IllegalStateException("segment writer for " + dir + " is finished or aborted");
        }
        if (len < RecordBatchV2Decoder.HEADER_SIZE || b[off + 16] != 2
                || Bytes.int32(b, off + 8) != len - 12) {
            throw new IllegalArgumentException("not one whole magic-2 record batch: " + len + " bytes, magic "
                + (len > 16 ? b[off + 16] : -1) + ", batch length field "
                + (len >= 12 ? Bytes.int32(b, off + 8) : -1) + " (for " + dir + ")");
        }
        long first = Bytes.int64(b, off);
        int lastDelta = Bytes.int32(b, off + RecordBatchV2Decoder.LAST_OFFSET_DELTA_OFFSET);
        if (first != nextOffset || lastDelta < 0) {
            throw new IllegalArgumentException("batch with offsets " + first + ".." + (first + lastDelta)
                + " does not continue the segments of " + dir + " at offset " + nextOffset);
        }
        if (len > segmentBytes) {
            throw new IllegalArgumentException("batch of " + len + " bytes at offset " + first
                + " exceeds segment.bytes=" + segmentBytes + " (for " + dir + ")");
        }
        long last = first + lastDelta;
        long batchMax = RecordBatchV2Decoder.maxTimestamp(b, off);
        if (out != null && size > 0 && (size > segmentBytes - len || offsetEntries >= offsetIndexEntries
                || timeEntries >= timeIndexEntries - 1 || last - base > Integer.MAX_VALUE)) {
            closeSegment();
        }
        if (out == null) {
            openSegment(first);
        }
        if (batchMax > maxTimestamp) {
            maxTimestamp = batchMax;
            offsetOfMaxTimestamp = last;
        }
        if (bytesSinceIndexEntry > indexIntervalBytes) {
            offsetIndex = grow(offsetIndex, (offsetEntries + 1) * OFFSET_ENTRY);
            RecordBatchV2Encoder.putInt32(offsetIndex, offsetEntries * OFFSET_ENTRY, (int) (last - base));
            RecordBatchV2Encoder.putInt32(offsetIndex, offsetEntries * OFFSET_ENTRY + 4, size);
            offsetEntries++;
            maybeAppendTime();
            bytesSinceIndexEntry = 0;
        }
        out.write(b, off, len);
        size += len;
        bytesSinceIndexEntry += len;
        nextOffset = last + 1;
    }

    /**
     * Closes the open segment (final time-index entry, both indexes written) and returns every segment written,
     * in offset order. Nothing written: no files and an empty list.
     */
    List<Segment> finish() throws IOException {
        if (finished) {
            throw new IllegalStateException("segment writer for " + dir + " is already finished or aborted");
        }
        if (out != null) {
            closeSegment();
        }
        finished = true;
        return List.copyOf(done);
    }

    /** Closes whatever is open and deletes every file this writer created (best effort; failures are suppressed). */
    void abort() throws IOException {
        finished = true;
        IOException first = null;
        if (out != null) {
            try {
                out.close();
            } catch (IOException e) {
                first = e;
            }
            out = null;
        }
        for (Path p : created) {
            try {
                fs.delete(p, false);
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        created.clear();
        if (first != null) {
            throw new IOException("aborting the segment writer for " + dir + " could not remove all its files",
                first);
        }
    }

    /** Aborts unless {@link #finish} succeeded (for try-with-resources: a failed task leaves no files). */
    @Override
    public void close() throws IOException {
        if (!finished) {
            abort();
        }
    }

    private void openSegment(long baseOffset) throws IOException {
        Path log = new Path(dir, fileName(baseOffset, ".log"));
        out = ExclusiveCreate.create(fs, log, BUFFER); // never over an existing file
        created.add(log); // only once made here: an abort must not delete a file someone else wrote
        base = baseOffset;
        size = 0;
        bytesSinceIndexEntry = 0;
        maxTimestamp = -1;
        offsetOfMaxTimestamp = baseOffset;
        offsetEntries = 0;
        timeEntries = 0;
        lastTimeEntry = -1;
    }

    private void maybeAppendTime() {
        if (maxTimestamp > lastTimeEntry) {
            timeIndex = grow(timeIndex, (timeEntries + 1) * TIME_ENTRY);
            RecordBatchV2Encoder.putInt64(timeIndex, timeEntries * TIME_ENTRY, maxTimestamp);
            RecordBatchV2Encoder.putInt32(timeIndex, timeEntries * TIME_ENTRY + 8, (int) (offsetOfMaxTimestamp - base));
            timeEntries++;
            lastTimeEntry = maxTimestamp;
        }
    }

    private void closeSegment() throws IOException {
        maybeAppendTime(); // the slot a time index keeps for this entry
        if (out.hasCapability(StreamCapabilities.HSYNC)) {
            out.hsync();
        }
        out.close();
        out = null;
        writeWhole(fileName(base, ".index"), offsetIndex, offsetEntries * OFFSET_ENTRY);
        writeWhole(fileName(base, ".timeindex"), timeIndex, timeEntries * TIME_ENTRY);
        done.add(new Segment(base, nextOffset, size, maxTimestamp));
    }

    private void writeWhole(String name, byte[] data, int len) throws IOException {
        Path p = new Path(dir, name);
        try (FSDataOutputStream o = ExclusiveCreate.create(fs, p, BUFFER)) {
            created.add(p);
            o.write(data, 0, len);
            if (o.hasCapability(StreamCapabilities.HSYNC)) {
                o.hsync();
            }
        }
    }

    private static byte[] grow(byte[] a, int need) {
        return need <= a.length ? a : Arrays.copyOf(a, Math.max(need, a.length * 2));
    }
}
