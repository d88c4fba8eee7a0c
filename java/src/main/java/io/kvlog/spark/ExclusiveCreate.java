package io.kvlog.spark;

import java.io.IOException;
import java.nio.file.Files;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * Creates a file that must not exist yet, atomically where the file system can: HDFS and ABFS check in the
 * create call itself; Hadoop's local file system only checks before it opens, so there the file is first made
 * with {@code O_CREAT|O_EXCL} and then opened over. Object stores without conditional writes (S3A without them)
 * only check before: two writers racing for one name there are caught later, by the commit's version check.
 */
final class ExclusiveCreate {
    private ExclusiveCreate() {
    }

    /** The file system to write through: a checksummed local one is used raw (no {@code .crc} files). */
    static FileSystem raw(FileSystem fs) {
        return fs instanceof LocalFileSystem local ? local.getRaw() : fs;
    }

    /** Opens {@code p} for writing; {@link FileAlreadyExistsException} when it exists. */
    static FSDataOutputStream create(FileSystem fs, Path p, int bufferSize) throws IOException {
        if (fs instanceof RawLocalFileSystem local) {
            try {
                Files.createFile(local.pathToFile(p).toPath());
            } catch (java.nio.file.FileAlreadyExistsException e) {
                throw new FileAlreadyExistsException(p + " already exists");
            }
            return fs.create(p, true, bufferSize); // over the empty file this writer now owns
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
}
