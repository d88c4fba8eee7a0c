package io.kvlog.spark.write;

import io.kvlog.spark.fs.ExclusiveCreate;
import io.kvlog.spark.log.CommittedOffsets;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/**
 * Test entry points (not an API): a file system that creates files the way S3A does from Hadoop 3.5, for the
 * tests of {@link ExclusiveCreate}. Under {@code condcreate://} the local disk behaves like an object store:
 * rename, append and truncate throw; a plain {@code create(path, overwrite=false)} does not check (S3A with
 * {@code fs.s3a.create.performance}); and a create that asks for {@code fs.option.create.conditional.overwrite}
 * writes to a private file and publishes it at {@code close()} only if the name is still free (a hard link, which
 * fails when the name exists), otherwise failing the close the way S3 answers 412 Precondition Failed.
 */
public final class ConditionalCreateForTests {
    private ConditionalCreateForTests() {
    }

    /** The file system; register it as {@code fs.condcreate.impl}. */
    public static final class ConditionalCreateFileSystem extends WriterBlocksForTests.CreateOnlyFileSystem {
        @Override
        public URI getUri() {
            return URI.create("condcreate:///");
        }

        @Override
        public String getScheme() {
            return "condcreate";
        }

        @Override
        public boolean hasPathCapability(Path path, String capability) throws IOException {
            return ExclusiveCreate.CONDITIONAL.equals(capability) || super.hasPathCapability(path, capability);
        }

        @Override
        public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
                                         short replication, long blockSize, Progressable progress) throws IOException {
            return super.create(f, permission, true, bufferSize, replication, blockSize, progress); // no check
        }

        @Override
        @SuppressWarnings("rawtypes")
        public FSDataOutputStreamBuilder createFile(Path path) {
            return new Builder(this, path);
        }

        FSDataOutputStream conditionalCreate(Path p, int bufferSize) throws IOException {
            java.nio.file.Path target = pathToFile(p).toPath();
            java.nio.file.Path pending = target.resolveSibling("." + target.getFileName() + ".pending-" + UUID.randomUUID());
            Files.createDirectories(target.getParent());
            FSDataOutputStream out = super.create(new Path(p.getParent(), pending.getFileName().toString()),
                FsPermission.getFileDefault(), true,
                bufferSize, (short) 1, 1 << 26, null);
            return new FSDataOutputStream(out, null) {
                @Override
                public void close() throws IOException {
                    super.close();
                    try {
                        Files.createLink(target, pending); // the completion: atomic, refused if the name exists
                    } catch (java.nio.file.FileAlreadyExistsException e) {
                        throw new IOException("412 Precondition Failed: " + p + " exists (If-None-Match: *)");
                    } finally {
                        Files.deleteIfExists(pending);
                    }
                }
            };
        }
    }

    private static final class Builder extends FSDataOutputStreamBuilder<FSDataOutputStream, Builder> {
        private final ConditionalCreateFileSystem fs;

        Builder(ConditionalCreateFileSystem fs, Path p) {
            super(fs, p);
            this.fs = fs;
            create();
        }

        @Override
        public Builder getThisBuilder() {
            return this;
        }

        @Override
        public FSDataOutputStream build() throws IOException {
            rejectUnknownMandatoryKeys(Set.of(ExclusiveCreate.CONDITIONAL), " for " + getPath());
            if (getOptions().getBoolean(ExclusiveCreate.CONDITIONAL, false)) {
                return fs.conditionalCreate(getPath(), getBufferSize());
            }
            return fs.create(getPath(), getFlags().contains(org.apache.hadoop.fs.CreateFlag.OVERWRITE), getBufferSize());
        }
    }

    private static Configuration conf() {
        Configuration conf = new Configuration();
        conf.set("fs.condcreate.impl", ConditionalCreateFileSystem.class.getName());
        conf.setBoolean("fs.condcreate.impl.disable.cache", true);
        return conf;
    }

    /**
     * {@code writers} threads create {@code file} through {@link ExclusiveCreate} at the same moment (all opened
     * before any closes) and write their number into it. Returns one line per writer: {@code won},
     * {@code lost <exception class>} (at close), {@code refused at open <exception class>}, then the file's content.
     */
    public static String race(String file, int writers) throws Exception {
        Path p = new Path("condcreate://" + file);
        FileSystem fs = ExclusiveCreate.raw(FileSystem.get(p.toUri(), conf()));
        String outcomes = outcomes(fs, p, writers);
        byte[] content = Files.readAllBytes(java.nio.file.Path.of(file));
        return outcomes + "\n" + new String(content, StandardCharsets.UTF_8);
    }

    /** {@link #race} on any file system (S3A against a test endpoint): {@code uri} through {@code conf}. */
    public static String raceAt(String uri, int writers, Configuration conf) throws Exception {
        Path p = new Path(uri);
        FileSystem fs = ExclusiveCreate.raw(p.getFileSystem(conf));
        String outcomes = outcomes(fs, p, writers);
        try (java.io.InputStream in = fs.open(p)) {
            return outcomes + "\n" + new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Whether {@link ExclusiveCreate} creates {@code uri} atomically (conditionally) through {@code conf}. */
    public static boolean conditionalAt(String uri, Configuration conf) throws IOException {
        Path p = new Path(uri);
        return ExclusiveCreate.conditional(ExclusiveCreate.raw(p.getFileSystem(conf)), p);
    }

    /** {@link #publishRace} on any file system: {@code rootUri} through {@code conf}. */
    public static int publishRaceAt(String rootUri, long version, int writers, Configuration conf) throws Exception {
        Path r = new Path(rootUri);
        return publishRace(r.getFileSystem(conf), r, version, writers);
    }

    private static String outcomes(FileSystem fs, Path p, int writers) throws InterruptedException {
        CountDownLatch opened = new CountDownLatch(writers);
        String[] outcome = new String[writers];
        Thread[] threads = new Thread[writers];
        for (int i = 0; i < writers; i++) {
            int me = i;
            threads[i] = new Thread(() -> {
                FSDataOutputStream out;
                try {
                    out = ExclusiveCreate.create(fs, p, 4096);
                } catch (Exception e) {
                    outcome[me] = "refused at open " + e.getClass().getSimpleName();
                    opened.countDown();
                    return;
                }
                try {
                    opened.countDown();
                    opened.await();
                    out.write(("writer " + me).getBytes(StandardCharsets.UTF_8));
                } catch (Exception e) {
                    outcome[me] = "failed " + e;
                    return;
                }
                try {
                    out.close();
                    outcome[me] = "won";
                } catch (Exception e) {
                    outcome[me] = "lost " + e.getClass().getSimpleName();
                }
            });
            threads[i].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        return String.join("\n", List.of(outcome));
    }

    /** {@code writers} commits of one version at once through {@link CommittedOffsets#publish}: how many won. */
    public static int publishRace(String root, long version, int writers) throws Exception {
        Path r = new Path("condcreate://" + root);
        return publishRace(FileSystem.get(r.toUri(), conf()), r, version, writers);
    }

    private static int publishRace(FileSystem fs, Path r, long version, int writers) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        int[] won = new int[1];
        Thread[] threads = new Thread[writers];
        for (int i = 0; i < writers; i++) {
            int me = i;
            threads[i] = new Thread(() -> {
                try {
                    start.await();
                    byte[] text = CommittedOffsets.format(version, "job-" + me, new java.util.TreeMap<>(), java.util.Map.of());
                    if (CommittedOffsets.publish(fs, r, version, text)) {
                        synchronized (won) {
                            won[0]++;
                        }
                    }
                } catch (FileAlreadyExistsException e) {
                    // lost, reported as an exception instead of false: counted as lost
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            threads[i].start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        return won[0];
    }
}
