package io.kvlog.spark.format;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.spark.unsafe.Platform;

/**
 * Encodes rows into magic-2 record batches as a producer writes them: CreateTime, producer id, epoch and base
 * sequence -1, partition leader epoch -1, offsets consecutive from a given base offset. A batch closes before it
 * would hold {@code recordsPerBatch} + 1 records or its uncompressed size (header included) would pass
 * {@code maxBatchBytes}; a record that is larger on its own gets a batch to itself. That is the rule of kvlog's
 * Python encoder ({@code kvlog.encode_arrays}), so the same rows split into the same batches, and uncompressed
 * batches are byte-identical to it.
 *
 * <p>Closed batches go to a {@link BatchConsumer} (a segment writer, a buffer). Not thread-safe: one per task.
 */
public final class RecordBatchV2Encoder implements AutoCloseable {
    public static final int DEFAULT_RECORDS_PER_BATCH = 16384;
    public static final int DEFAULT_MAX_BATCH_BYTES = 1 << 20;
    public static final int HEADER_SIZE = RecordBatchV2Decoder.HEADER_SIZE;
    /** The largest batch a Java array holds, header included. */
    static final int MAX_BATCH_SIZE = Integer.MAX_VALUE - 16;

    /** Receives each closed batch; the bytes {@code b[off, off + len)} are reused once it returns. */
    public interface BatchConsumer {
        void batch(byte[] b, int off, int len) throws IOException;
    }

    /** One record header: a UTF-8 key (never null) and a value (null allowed). */
    public record Header(String key, byte[] value) {
        public Header {
            if (key == null) {
                throw new IllegalArgumentException("Kafka record header keys may not be null");
            }
        }
    }

    private final int codec;
    private final int recordsPerBatch;
    private final int maxBatchBytes;
    private final BatchConsumer consumer;
    private final BatchCompressor compressor;
    private final CRC32C crc = new CRC32C();

    private long nextOffset;
    /** Records of the open batch, encoded from {@link #HEADER_SIZE} (the header is filled in at close). */
    private byte[] buf = new byte[HEADER_SIZE + 4096];
    private int pos = HEADER_SIZE;
    private int count;
    private long baseOffset;
    private long baseTimestamp;
    private long maxTimestamp;
    private long batches;
    private byte[][] headerKeys = new byte[4][];

    /**
     * @param codec            {@link Decompressor#NONE} .. {@link Decompressor#ZSTD}
     * @param recordsPerBatch  at most this many records per batch (1 .. 2^31-1)
     * @param maxBatchBytes    close a batch before its uncompressed size passes this (at least the 61-byte header)
     * @param firstOffset      the offset of the first record
     */
    public RecordBatchV2Encoder(int codec, int recordsPerBatch, int maxBatchBytes, long firstOffset, BatchConsumer consumer) {
        if (codec < Decompressor.NONE || codec > Decompressor.ZSTD) {
            throw new IllegalArgumentException("unknown compression codec id " + codec + " (0 none, 1 gzip, 2 snappy, "
                + "3 lz4, 4 zstd)");
        }
        if (recordsPerBatch < 1) {
            throw new IllegalArgumentException("recordsPerBatch must be at least 1, got " + recordsPerBatch);
        }
        if (maxBatchBytes < HEADER_SIZE) {
            throw new IllegalArgumentException("maxBatchBytes " + maxBatchBytes + " is smaller than a batch header ("
                + HEADER_SIZE + " bytes)");
        }
        if (firstOffset < 0) {
            throw new IllegalArgumentException("first offset must not be negative, got " + firstOffset);
        }
        this.codec = codec;
        this.recordsPerBatch = recordsPerBatch;
        this.maxBatchBytes = maxBatchBytes;
        this.nextOffset = firstOffset;
        this.consumer = consumer;
        this.compressor = codec == Decompressor.NONE ? null : new BatchCompressor(codec);
    }

    /** The codec id of a Kafka {@code compression.type} name: none/uncompressed, gzip, snappy, lz4, zstd. */
    public static int codecId(String name) {
        return switch (name == null ? "none" : name.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "none", "uncompressed", "" -> Decompressor.NONE;
            case "gzip" -> Decompressor.GZIP;
            case "snappy" -> Decompressor.SNAPPY;
            case "lz4" -> Decompressor.LZ4;
            case "zstd" -> Decompressor.ZSTD;
            default -> throw new IllegalArgumentException("unknown compression " + name
                + "; use none, gzip, snappy, lz4 or zstd");
        };
    }

    /** The offset the next appended record gets. */
    long nextOffset() {
        return nextOffset;
    }

    /** Batches handed to the consumer so far. */
    public long batches() {
        return batches;
    }

    /** Bytes of the open (not yet closed) batch's records, uncompressed. */
    int openBytes() {
        return pos - HEADER_SIZE;
    }

    /** Bytes of the buffer the open batch is built in (it keeps its size between batches). */
    public int bufferBytes() {
        return buf.length;
    }

    /** Records in the open (not yet closed) batch. */
    int pendingRecords() {
        return count;
    }

    /**
     * Appends one record ({@code key}/{@code value} null for Kafka's null; {@code headers} null or empty for
     * none; {@code timestamp} in epoch ms, or -1 for none), first closing the open batch when the record would
     * not fit it.
     */
    public void append(byte[] key, byte[] value, long timestamp, List<Header> headers) throws IOException {
        append(key, Platform.BYTE_ARRAY_OFFSET, key == null ? -1 : key.length, value, Platform.BYTE_ARRAY_OFFSET,
            value == null ? -1 : value.length, timestamp, headers);
    }

    /**
     * {@link #append(byte[], byte[], long, List)} with the key and value read where they lie ({@code base} and
     * address as {@link Platform} takes them, a length of -1 for null): a Spark {@code UnsafeRow}'s bytes are
     * copied once, into the batch, instead of into an array per field first.
     */
    public void append(Object keyBase, long keyAt, int keyLen, Object valueBase, long valueAt, int valueLen, long timestamp,
                List<Header> headers) throws IOException {
        if (timestamp < -1) {
            throw new IllegalArgumentException("invalid timestamp " + timestamp + " for the record at offset "
                + nextOffset + ": must be -1 (none) or non-negative, as Kafka's producer requires");
        }
        int nh = headers == null ? 0 : headers.size();
        if (headerKeys.length < nh) {
            headerKeys = new byte[Math.max(nh, headerKeys.length * 2)][];
        }
        long fields = Math.max(keyLen, 0) + (long) Math.max(valueLen, 0);
        fields += sizeOfVarint(keyLen) + sizeOfVarint(valueLen);
        fields += sizeOfVarint(nh);
        for (int h = 0; h < nh; h++) {
            Header header = headers.get(h);
            byte[] k = header.key().getBytes(StandardCharsets.UTF_8);
            headerKeys[h] = k;
            byte[] v = header.value();
            fields += sizeOfVarint(k.length) + k.length + sizeOfVarint(v == null ? -1 : v.length)
                + (v == null ? 0 : v.length);
        }
        long body = bodySize(fields, timestamp);
        long size = sizeOfVarint((int) Math.min(body, Integer.MAX_VALUE)) + body;
        if (count > 0 && (count >= recordsPerBatch || (long) pos + size > maxBatchBytes)) {
            closeBatch();
            body = bodySize(fields, timestamp);
            size = sizeOfVarint((int) Math.min(body, Integer.MAX_VALUE)) + body;
        }
        if ((long) pos + size > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("the record at offset " + nextOffset + " (" + size + " bytes encoded) "
                + "does not fit in a record batch");
        }
        if (count == 0) {
            baseOffset = nextOffset;
            baseTimestamp = timestamp;
            maxTimestamp = timestamp;
        } else if (timestamp > maxTimestamp) {
            maxTimestamp = timestamp;
        }
        ensure((int) (pos + size));
        int p = writeVarint(buf, pos, (int) body);
        buf[p++] = 0; // record attributes: unused
        p = writeVarlong(buf, p, timestamp - baseTimestamp);
        p = writeVarint(buf, p, (int) (nextOffset - baseOffset));
        p = writeBytes(buf, p, keyBase, keyAt, keyLen);
        p = writeBytes(buf, p, valueBase, valueAt, valueLen);
        p = writeVarint(buf, p, nh);
        for (int h = 0; h < nh; h++) {
            p = writeBytes(buf, p, headerKeys[h]);
            p = writeBytes(buf, p, headers.get(h).value());
            headerKeys[h] = null;
        }
        pos = p;
        count++;
        nextOffset++;
    }

    /** Closes the open batch, if any, and hands it to the consumer. */
    public void flush() throws IOException {
        if (count > 0) {
            closeBatch();
        }
    }

    /** Frees the compressor's native resources (it does not flush). */
    @Override
    public void close() {
        if (compressor != null) {
            compressor.close();
        }
    }

    /** The record's body (after its length varint) when it joins the open batch, or starts one. */
    private long bodySize(long fields, long timestamp) {
        long tsDelta = count == 0 ? 0 : timestamp - baseTimestamp;
        int offsetDelta = count == 0 ? 0 : (int) (nextOffset - baseOffset);
        return 1 + sizeOfVarlong(tsDelta) + sizeOfVarint(offsetDelta) + fields;
    }

    private void closeBatch() throws IOException {
        byte[] out;
        int size;
        if (compressor == null) {
            out = buf;
            size = pos;
        } else {
            out = compressor.compress(buf, HEADER_SIZE, pos - HEADER_SIZE, HEADER_SIZE);
            size = compressor.size();
        }
        writeHeader(out, size);
        consumer.batch(out, 0, size);
        batches++;
        count = 0;
        pos = HEADER_SIZE;
    }

    private void writeHeader(byte[] b, int size) {
        putInt64(b, 0, baseOffset);
        putInt32(b, 8, size - 12);
        putInt32(b, 12, -1); // partition leader epoch: the broker's to set
        b[16] = 2;
        putInt16(b, RecordBatchV2Decoder.ATTRIBUTES_OFFSET, codec); // CreateTime, not transactional, no control
        putInt32(b, RecordBatchV2Decoder.LAST_OFFSET_DELTA_OFFSET, count - 1);
        putInt64(b, RecordBatchV2Decoder.BASE_TIMESTAMP_OFFSET, baseTimestamp);
        putInt64(b, RecordBatchV2Decoder.MAX_TIMESTAMP_OFFSET, maxTimestamp);
        putInt64(b, 43, -1L); // producer id
        putInt16(b, 51, -1); // producer epoch
        putInt32(b, 53, -1); // base sequence
        putInt32(b, RecordBatchV2Decoder.RECORD_COUNT_OFFSET, count);
        crc.reset();
        crc.update(b, RecordBatchV2Decoder.ATTRIBUTES_OFFSET, size - RecordBatchV2Decoder.ATTRIBUTES_OFFSET);
        putInt32(b, RecordBatchV2Decoder.CRC_OFFSET, (int) crc.getValue());
    }

    private void ensure(int need) {
        if (need > buf.length) {
            long grown = Math.max(need, Math.min((long) buf.length * 2, MAX_BATCH_SIZE));
            buf = Arrays.copyOf(buf, (int) grown);
        }
    }

    // ------------------------------------------------------------------------------------ varints (zig-zag)
    /** Bytes of the zig-zag varint: one per 7 significant bits (no loop: it runs several times per record). */
    static int sizeOfVarint(int value) {
        int v = (value << 1) ^ (value >> 31);
        return (31 - Integer.numberOfLeadingZeros(v | 1)) / 7 + 1;
    }

    static int sizeOfVarlong(long value) {
        long v = (value << 1) ^ (value >> 63);
        return (63 - Long.numberOfLeadingZeros(v | 1)) / 7 + 1;
    }

    static int writeVarint(byte[] b, int p, int value) {
        int v = (value << 1) ^ (value >> 31);
        if ((v & 0xFFFFFF80) == 0) { // most lengths, deltas and counts of small records
            b[p] = (byte) v;
            return p + 1;
        }
        while ((v & 0xFFFFFF80) != 0) {
            b[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    static int writeVarlong(byte[] b, int p, long value) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0) {
            b[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    /** A varint length (-1 for null) and the bytes. */
    private static int writeBytes(byte[] b, int p, Object base, long at, int len) {
        p = writeVarint(b, p, len);
        if (len > 0) {
            Platform.copyMemory(base, at, b, Platform.BYTE_ARRAY_OFFSET + p, len);
            return p + len;
        }
        return p;
    }

    private static int writeBytes(byte[] b, int p, byte[] data) {
        if (data == null) {
            return writeVarint(b, p, -1);
        }
        p = writeVarint(b, p, data.length);
        System.arraycopy(data, 0, b, p, data.length);
        return p + data.length;
    }

    static void putInt16(byte[] b, int p, int v) {
        b[p] = (byte) (v >>> 8);
        b[p + 1] = (byte) v;
    }

    public static void putInt32(byte[] b, int p, int v) {
        b[p] = (byte) (v >>> 24);
        b[p + 1] = (byte) (v >>> 16);
        b[p + 2] = (byte) (v >>> 8);
        b[p + 3] = (byte) v;
    }

    static void putInt32le(byte[] b, int p, int v) {
        b[p] = (byte) v;
        b[p + 1] = (byte) (v >>> 8);
        b[p + 2] = (byte) (v >>> 16);
        b[p + 3] = (byte) (v >>> 24);
    }

    public static void putInt64(byte[] b, int p, long v) {
        putInt32(b, p, (int) (v >>> 32));
        putInt32(b, p + 4, (int) v);
    }
}
