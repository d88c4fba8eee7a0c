package io.kvlog.spark.write;

import io.kvlog.spark.format.Bytes;
import io.kvlog.spark.format.RecordBatchV2Encoder;
import io.kvlog.spark.fs.ExclusiveCreate;
import io.kvlog.spark.fs.LogFileSystems;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.util.Progressable;

/**
 * Test entry points (not an API): drive the writer building blocks ({@link RecordBatchV2Encoder},
 * {@link DefaultPartitioner}, {@link SegmentWriter}) from Python over py4j with one byte array per call.
 *
 * <p>Rows are packed big-endian, one after another: int32 key length (-1: null) and key, int32 value length (-1:
 * null) and value, int64 timestamp (ms), int32 header count, then per header int32 key length and UTF-8 key,
 * int32 value length (-1: null) and value. Keys alone (for the partitioner) are int32 length (-1: null) and bytes.
 */
public final class WriterBlocksForTests {
    private WriterBlocksForTests() {
    }

    /**
     * Creates {@code path} on the local disk as the sink creates its files ({@link ExclusiveCreate}), writes
     * {@code data} and syncs it; whether the stream could sync ({@code hsync}, i.e. fsync).
     */
    public static boolean localCreate(String path, byte[] data) throws IOException {
        FileSystem fs = ExclusiveCreate.raw(FileSystem.getLocal(new Configuration()));
        try (FSDataOutputStream out = ExclusiveCreate.create(fs, new Path(path), 4096)) {
            out.write(data);
            boolean syncs = out.hasCapability(org.apache.hadoop.fs.StreamCapabilities.HSYNC);
            out.hsync();
            return syncs;
        }
    }

    /**
     * Replaces {@code path} on the local disk as the sink writes its broker files ({@link ExclusiveCreate}), its
     * directories made as the sink makes them. Hadoop's umask is set to 077 here: a directory Hadoop made (and
     * chmod-ed) would be private, one made without a chmod gets the process's umask.
     */
    public static void localOverwrite(String path, byte[] data) throws IOException {
        Configuration conf = new Configuration();
        conf.set("fs.permissions.umask-mode", "077");
        FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf);
        try (FSDataOutputStream out = ExclusiveCreate.overwrite(fs, new Path(path), 4096)) {
            out.write(data);
        }
    }

    /**
     * The local disk under the scheme {@code createonly://}, as an object store behaves: files are created and
     * written once; rename, append and truncate throw. Writing through it shows a writer needs none of them.
     */
    public static class CreateOnlyFileSystem extends RawLocalFileSystem {
        static final URI NAME = URI.create("createonly:///");

        @Override
        public URI getUri() {
            return NAME;
        }

        @Override
        public String getScheme() {
            return "createonly";
        }

        @Override
        public boolean rename(Path src, Path dst) {
            throw new UnsupportedOperationException("createonly:// has no rename (asked for " + src + " -> " + dst + ")");
        }

        @Override
        public FSDataOutputStream append(Path f, int bufferSize, Progressable progress) {
            throw new UnsupportedOperationException("createonly:// has no append (asked for " + f + ")");
        }

        @Override
        public boolean truncate(Path f, long newLength) {
            throw new UnsupportedOperationException("createonly:// has no truncate (asked for " + f + ")");
        }
    }

    private static Configuration conf() {
        Configuration conf = new Configuration();
        conf.set("fs.createonly.impl", CreateOnlyFileSystem.class.getName());
        conf.setBoolean("fs.createonly.impl.disable.cache", true);
        return conf;
    }

    private record Row(byte[] key, byte[] value, long timestamp, List<RecordBatchV2Encoder.Header> headers) {
    }

    private static byte[] lengthPrefixed(ByteBuffer in) {
        int n = in.getInt();
        if (n < -1 || n > in.remaining()) {
            throw new IllegalArgumentException("packed length " + n + " at byte " + (in.position() - 4)
                + " exceeds the " + in.remaining() + " bytes remaining");
        }
        if (n < 0) {
            return null;
        }
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }

    private static List<Row> rows(byte[] packed) {
        ByteBuffer in = ByteBuffer.wrap(packed);
        List<Row> out = new ArrayList<>();
        while (in.hasRemaining()) {
            byte[] key = lengthPrefixed(in);
            byte[] value = lengthPrefixed(in);
            long ts = in.getLong();
            int nh = in.getInt();
            List<RecordBatchV2Encoder.Header> headers = new ArrayList<>(nh);
            for (int h = 0; h < nh; h++) {
                byte[] k = lengthPrefixed(in);
                if (k == null) {
                    throw new IllegalArgumentException("null header key in packed row " + out.size());
                }
                headers.add(new RecordBatchV2Encoder.Header(new String(k, StandardCharsets.UTF_8), lengthPrefixed(in)));
            }
            out.add(new Row(key, value, ts, headers));
        }
        return out;
    }

    /** The rows encoded as consecutive batches from {@code firstOffset}. */
    public static byte[] encode(byte[] packedRows, String compression, int recordsPerBatch, int maxBatchBytes,
                                long firstOffset) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (RecordBatchV2Encoder enc = new RecordBatchV2Encoder(RecordBatchV2Encoder.codecId(compression),
                recordsPerBatch, maxBatchBytes, firstOffset, out::write)) {
            for (Row r : rows(packedRows)) {
                enc.append(r.key(), r.value(), r.timestamp(), r.headers());
            }
            enc.flush();
        }
        return out.toByteArray();
    }

    /** The LZ4 compressor the encoder runs ({@code LZ4JNICompressor}: liblz4; otherwise lz4-java's Java port). */
    /** {@link SparkBuckets#keyOf}: the clustering value that Spark's hash puts in bucket {@code p} of {@code n}. */
    public static int sparkBucketKey(int p, int n) {
        return SparkBuckets.keyOf(p, n);
    }

    public static String lz4Implementation() {
        return net.jpountz.lz4.LZ4Factory.fastestInstance().fastCompressor().toString();
    }

    /** The partition of each packed key (int32 big-endian each); a null key routes by the packed value beside it. */
    public static byte[] partitions(byte[] packedKeys, byte[] packedValues, int partitions) {
        ByteBuffer keys = ByteBuffer.wrap(packedKeys);
        ByteBuffer values = ByteBuffer.wrap(packedValues);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] word = new byte[4];
        while (keys.hasRemaining()) {
            RecordBatchV2Encoder.putInt32(word, 0,
                DefaultPartitioner.partition(lengthPrefixed(keys), lengthPrefixed(values), partitions));
            out.write(word, 0, 4);
        }
        return out.toByteArray();
    }

    /** {@code Utils.murmur2} of each packed (non-null) key, int32 big-endian each. */
    public static byte[] murmur2(byte[] packedKeys) {
        ByteBuffer in = ByteBuffer.wrap(packedKeys);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] word = new byte[4];
        while (in.hasRemaining()) {
            RecordBatchV2Encoder.putInt32(word, 0, DefaultPartitioner.murmur2(lengthPrefixed(in)));
            out.write(word, 0, 4);
        }
        return out.toByteArray();
    }

    /**
     * Encodes the rows from {@code startOffset} into segments under {@code dir} (a Hadoop path or URI, including
     * {@code createonly:///...}, see {@link CreateOnlyFileSystem}); one line
     * per segment: {@code baseOffset nextOffset bytes maxTimestamp}. With {@code abortAfterBatches >= 0} the
     * writer is aborted after that many batches instead (the answer is then empty).
     */
    public static String writeSegments(String dir, byte[] packedRows, String compression, int recordsPerBatch,
                                       int maxBatchBytes, long startOffset, int segmentBytes, int indexIntervalBytes,
                                       int segmentIndexBytes, int abortAfterBatches) throws IOException {
        Path path = new Path(dir);
        FileSystem fs = LogFileSystems.of(path, conf());
        StringBuilder answer = new StringBuilder();
        try (SegmentWriter writer = new SegmentWriter(fs, path, startOffset, segmentBytes, indexIntervalBytes,
                segmentIndexBytes);
             RecordBatchV2Encoder enc = new RecordBatchV2Encoder(RecordBatchV2Encoder.codecId(compression),
                 recordsPerBatch, maxBatchBytes, startOffset, writer)) {
            for (Row r : rows(packedRows)) {
                enc.append(r.key(), r.value(), r.timestamp(), r.headers());
                if (abortAfterBatches >= 0 && enc.batches() >= abortAfterBatches) {
                    writer.abort();
                    return "";
                }
            }
            enc.flush();
            for (SegmentWriter.Segment s : writer.finish()) {
                answer.append(s.baseOffset()).append(' ').append(s.nextOffset()).append(' ').append(s.bytes())
                    .append(' ').append(s.maxTimestamp()).append('\n');
            }
        }
        return answer.toString();
    }

    /** Appends the given encoded batches as they are (to test the writer's checks); answers as writeSegments. */
    public static String appendBatches(String dir, byte[] batches, long startOffset, int segmentBytes,
                                       int indexIntervalBytes, int segmentIndexBytes) throws IOException {
        Path path = new Path(dir);
        FileSystem fs = LogFileSystems.of(path, conf());
        StringBuilder answer = new StringBuilder();
        try (SegmentWriter writer = new SegmentWriter(fs, path, startOffset, segmentBytes, indexIntervalBytes,
                segmentIndexBytes)) {
            int p = 0;
            while (p < batches.length) {
                if (batches.length - p < 12) {
                    throw new IllegalArgumentException(
                        (batches.length - p) + " bytes after the last whole batch at " + p);
                }
                int len = Bytes.int32(batches, p + 8) + 12;
                if (len < 12 || len > batches.length - p) {
                    throw new IllegalArgumentException("batch at " + p + " claims " + len + " bytes; "
                        + (batches.length - p) + " remain");
                }
                writer.batch(batches, p, len);
                p += len;
            }
            for (SegmentWriter.Segment s : writer.finish()) {
                answer.append(s.baseOffset()).append(' ').append(s.nextOffset()).append(' ').append(s.bytes())
                    .append(' ').append(s.maxTimestamp()).append('\n');
            }
        }
        return answer.toString();
    }
}
