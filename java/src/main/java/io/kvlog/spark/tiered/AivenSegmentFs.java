package io.kvlog.spark.tiered;

import io.kvlog.spark.fs.LogFileSystems;
import io.kvlog.spark.log.OffsetIndexLookup;
import io.kvlog.spark.log.SegmentStream;
import io.kvlog.spark.log.TimeIndexLookup;
import io.kvlog.spark.log.TxnIndexFile;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/**
 * Aiven segments shown to the segment readers as the files Kafka wrote, read-only: the path of a segment's
 * {@code .log} object serves the original {@code .log} ({@link AivenChunkedInput}), and the same stem with
 * {@code .index}, {@code .timeindex} or {@code .txnindex} serves that index from the {@code .indexes} object
 * (held in memory; a transaction index the segment has none of is not there). Every reader of a segment
 * ({@link SegmentStream}, {@link OffsetIndexLookup}, {@link TimeIndexLookup}, {@link TxnIndexFile},
 * {@link RemoteSegmentCheck}) takes a file system and a path, so they read Aiven segments unchanged. Never
 * registered as a scheme: made by {@link AivenLayout} on the driver and by {@link #of} for a split.
 */
final class AivenSegmentFs extends FileSystem {
    private static final String[][] INDEXES = {{".index", "offset"}, {".timeindex", "timestamp"},
        {".txnindex", "transaction"}};
    private final Map<String, AivenSegmentFiles> segments = new ConcurrentHashMap<>();
    private final FileSystem store;
    private final AivenKeyRing keys;

    AivenSegmentFs(FileSystem store, AivenKeyRing keys, Configuration conf) {
        this.store = store;
        this.keys = keys;
        setConf(conf);
    }

    /** The file system of one split's segment, its objects read through the file system that holds them. */
    static AivenSegmentFs of(AivenSegment seg, Configuration conf) throws IOException {
        FileSystem store = LogFileSystems.of(new Path(seg.log()), conf);
        AivenSegmentFs fs = new AivenSegmentFs(store, new AivenKeyRing(seg.keyFiles()), conf);
        fs.add(seg);
        return fs;
    }

    /** Serves {@code seg}; returns the path of its {@code .log}. */
    Path add(AivenSegment seg) {
        segments.computeIfAbsent(seg.log(), k -> new AivenSegmentFiles(seg, store, keys));
        return new Path(seg.log());
    }

    private AivenSegmentFiles segmentOf(Path p, String suffix) {
        String s = p.toString();
        return s.endsWith(suffix) ? segments.get(s.substring(0, s.length() - suffix.length()) + ".log") : null;
    }

    /** The index file {@code p} serves: {segment, manifest field}, or null. */
    private Object[] index(Path p) {
        for (String[] kind : INDEXES) {
            AivenSegmentFiles f = segmentOf(p, kind[0]);
            if (f != null) {
                return new Object[] {f, kind[1]};
            }
        }
        return null;
    }

    @Override
    public FileStatus getFileStatus(Path p) throws IOException {
        AivenSegmentFiles log = segments.get(p.toString());
        if (log != null) {
            return new FileStatus(log.logSize(), false, 1, AivenChunkedInput.BLOCK, 0, p);
        }
        Object[] idx = index(p);
        if (idx != null) {
            byte[] data = ((AivenSegmentFiles) idx[0]).index((String) idx[1]);
            if (data != null) {
                return new FileStatus(data.length, false, 1, AivenChunkedInput.BLOCK, 0, p);
            }
        }
        throw new FileNotFoundException(p + " (not a file of an Aiven segment)");
    }

    @Override
    public FSDataInputStream open(Path p, int bufferSize) throws IOException {
        AivenSegmentFiles log = segments.get(p.toString());
        if (log != null) {
            return new FSDataInputStream(log.openLog());
        }
        Object[] idx = index(p);
        if (idx != null) {
            byte[] data = ((AivenSegmentFiles) idx[0]).index((String) idx[1]);
            if (data != null) {
                return new FSDataInputStream(new Held(data));
            }
        }
        throw new FileNotFoundException(p + " (not a file of an Aiven segment)");
    }

    /** An index held in memory, for positioned and sequential reads. */
    private static final class Held extends PositionedInput {
        private final byte[] data;

        Held(byte[] data) {
            super("");
            this.data = data;
        }

        @Override
        public int read(long position, byte[] b, int off, int len) throws IOException {
            if (position < 0) {
                throw new EOFException("negative read position " + position);
            }
            if (len == 0) {
                return 0;
            }
            if (position >= data.length) {
                return -1;
            }
            int n = (int) Math.min(len, data.length - position);
            System.arraycopy(data, (int) position, b, off, n);
            return n;
        }
    }

    @Override
    public URI getUri() {
        return store.getUri();
    }

    @Override
    public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
                                     short replication, long blockSize, Progressable progress) throws IOException {
        throw new IOException("Aiven segments are read-only");
    }

    @Override
    public FSDataOutputStream append(Path f, int bufferSize, Progressable progress) throws IOException {
        throw new IOException("Aiven segments are read-only");
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        throw new IOException("Aiven segments are read-only");
    }

    @Override
    public boolean delete(Path f, boolean recursive) throws IOException {
        throw new IOException("Aiven segments are read-only");
    }

    @Override
    public FileStatus[] listStatus(Path f) throws IOException {
        throw new IOException("Aiven segments are not listed: their paths come from __remote_log_metadata");
    }

    @Override
    public void setWorkingDirectory(Path dir) {
        // nothing is resolved against it: every path is absolute
    }

    @Override
    public Path getWorkingDirectory() {
        return new Path("/");
    }

    @Override
    public boolean mkdirs(Path f, FsPermission permission) throws IOException {
        throw new IOException("Aiven segments are read-only");
    }
}
