package io.kvlog.spark.fs;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Locale;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;

/**
 * A local file opened for writing without Hadoop's {@code create}. Hadoop's local file system sets every file it
 * creates to the default permission afterwards, and without Hadoop's native library (PySpark ships none) that is a
 * {@code chmod} child process per file: milliseconds each, several per partition in a sink job (directories
 * likewise: {@link ExclusiveCreate#mkdirs}). The file gets the process's umask instead, as Kafka's and kvlog's own writers give it. {@code hsync} is {@code fsync}.
 */
final class LocalFileOutput extends OutputStream implements Syncable, StreamCapabilities {
    private final FileOutputStream file;
    private final BufferedOutputStream buffered;

    private LocalFileOutput(FileOutputStream file, int bufferSize) {
        this.file = file;
        this.buffered = new BufferedOutputStream(file, Math.max(bufferSize, 512));
    }

    /** {@code p} on {@code fs}, created or truncated; its directory made first when missing, as Hadoop's would be. */
    static FSDataOutputStream open(RawLocalFileSystem fs, Path p, int bufferSize) throws IOException {
        java.io.File f = fs.pathToFile(p);
        java.io.File parent = f.getParentFile();
        if (parent != null && !parent.isDirectory()) {
            ExclusiveCreate.mkdirs(fs, p.getParent());
        }
        return new FSDataOutputStream(new LocalFileOutput(new FileOutputStream(f, false), bufferSize), null);
    }

    @Override
    public void write(int b) throws IOException {
        buffered.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        buffered.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
        buffered.flush();
    }

    @Override
    public void close() throws IOException {
        buffered.close();
    }

    @Override
    public void hflush() throws IOException {
        buffered.flush();
    }

    @Override
    public void hsync() throws IOException {
        buffered.flush();
        file.getFD().sync();
    }

    @Override
    public boolean hasCapability(String capability) {
        String c = capability.toLowerCase(Locale.ROOT);
        return c.equals(StreamCapabilities.HSYNC) || c.equals("hflush");
    }
}
