package io.kvlog.spark.fs;

import java.io.IOException;
import java.nio.file.Files;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * Creates a file that must not exist yet, atomically where the file system can: HDFS and ABFS check in the
 * create call itself; Hadoop's local file system only checks before it opens, so there the file is first made
 * with {@code O_CREAT|O_EXCL} and then opened over. A store that declares conditional creation (S3A from Hadoop
 * 3.5: a PUT or multipart completion with {@code If-None-Match: *}) is asked for it; it decides when the upload
 * completes, so a writer that lost the race learns it at {@code close()}, as a {@link FileAlreadyExistsException}.
 * Stores with neither only check before: two writers racing for one name there are caught later, by the lease
 * and the commit's version check.
 */
public final class ExclusiveCreate {
    private ExclusiveCreate() {
    }

    /** {@code p} written whole, created or replaced (a PUT on an object store: it appears complete or not at all). */
    public static FSDataOutputStream overwrite(FileSystem fs, Path p, int bufferSize) throws IOException {
        FileSystem raw = raw(fs);
        return raw.getClass() == RawLocalFileSystem.class ? LocalFileOutput.open((RawLocalFileSystem) raw, p, bufferSize)
            : raw.create(p, true, bufferSize);
    }

    /**
     * Makes {@code dir} and its missing parents. On Hadoop's plain local file system through {@code java.nio}:
     * Hadoop's {@code mkdirs} sets the default permission on every directory it makes, which without Hadoop's
     * native library is a {@code chmod} child process each (forked from the executor's JVM); the directories get
     * the process's umask instead, as Kafka's and kvlog's own writers give them.
     */
    public static void mkdirs(FileSystem fs, Path dir) throws IOException {
        FileSystem raw = raw(fs);
        if (raw.getClass() == RawLocalFileSystem.class) {
            Files.createDirectories(((RawLocalFileSystem) raw).pathToFile(dir).toPath());
        } else if (!raw.mkdirs(dir)) {
            throw new IOException("could not make the directory " + dir);
        }
    }

    /** The file system to write through: a checksummed local one is used raw (no {@code .crc} files). */
    public static FileSystem raw(FileSystem fs) {
        return fs instanceof LocalFileSystem local ? local.getRaw() : fs;
    }

    public static final String CONDITIONAL = Options.CreateFileOptionKeys.FS_OPTION_CREATE_CONDITIONAL_OVERWRITE;

    /** Whether {@link #create} is atomic on {@code fs} (or, for a conditional store, at close). */
    public static boolean conditional(FileSystem fs, Path p) {
        try {
            return fs.hasPathCapability(p, CONDITIONAL);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Opens {@code p} for writing; {@link FileAlreadyExistsException} when it exists (on a conditional store
     * possibly only from {@code close()}, which then has written nothing).
     */
    public static FSDataOutputStream create(FileSystem fs, Path p, int bufferSize) throws IOException {
        if (conditional(fs, p)) {
            FSDataOutputStream out = (FSDataOutputStream) fs.createFile(p).overwrite(false).recursive()
                .bufferSize(bufferSize).must(CONDITIONAL, true).build();
            return new ConditionalOutput(out, fs, p);
        }
        if (fs instanceof RawLocalFileSystem local) {
            try {
                Files.createFile(local.pathToFile(p).toPath());
            } catch (java.nio.file.FileAlreadyExistsException e) {
                throw new FileAlreadyExistsException(p + " already exists");
            }
            // over the empty file this writer now owns (a subclass, e.g. a test's file system, keeps its create)
            return local.getClass() == RawLocalFileSystem.class ? LocalFileOutput.open(local, p, bufferSize)
                : fs.create(p, true, bufferSize);
        }
        try {
            return fs.create(p, false, bufferSize);
        } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
            throw e;
        } catch (IOException e) {
            if (fs.exists(p)) { // some connectors report the clash as a plain IOException
                throw new FileAlreadyExistsException(p + " already exists (" + e.getMessage() + ")");
            }
            throw e;
        }
    }

    /** A conditional upload: a failed completion of a name that now exists lost the race to another writer. */
    private static final class ConditionalOutput extends FSDataOutputStream {
        private final FileSystem fs;
        private final Path path;

        ConditionalOutput(FSDataOutputStream out, FileSystem fs, Path path) {
            super(out, null);
            this.fs = fs;
            this.path = path;
        }

        @Override
        public void close() throws IOException {
            try {
                super.close();
            } catch (FileAlreadyExistsException e) {
                throw e;
            } catch (IOException e) {
                boolean exists;
                try {
                    exists = fs.exists(path);
                } catch (IOException probe) {
                    e.addSuppressed(probe);
                    throw e;
                }
                if (exists) {
                    FileAlreadyExistsException lost = new FileAlreadyExistsException(path
                        + " was created by another writer first (" + e.getMessage() + ")");
                    lost.initCause(e);
                    throw lost;
                }
                throw e;
            }
        }
    }
}
