package io.kvlog.spark.tiered;

import io.kvlog.spark.fs.LogFileSystems;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Map;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * One Aiven segment's three objects, read through the file system that holds them: the manifest fetched once
 * (one GET) and held against {@code __remote_log_metadata}, the data key unwrapped once, the {@code .indexes}
 * object fetched once on the first index wanted; the {@code .log} opened per reader ({@link AivenChunkedInput}).
 * As {@code kvlog.tiered.aiven.AivenSegmentFiles}. Errors are {@link RemoteSegmentException}s naming the object.
 */
final class AivenSegmentFiles {
    final AivenSegment segment;
    private final FileSystem store;
    private final AivenKeyRing keys;
    private AivenManifest manifest;
    private AivenCipher cipher;
    private Map<String, byte[]> indexes;

    AivenSegmentFiles(AivenSegment segment, FileSystem store, AivenKeyRing keys) {
        this.segment = segment;
        this.store = store;
        this.keys = keys;
    }

    static String shown(String object) {
        return LogFileSystems.shown(object);
    }

    synchronized AivenManifest manifest() throws IOException {
        if (manifest == null) {
            String name = shown(segment.manifest());
            byte[] data;
            try {
                data = readWhole(new Path(segment.manifest()));
            } catch (FileNotFoundException e) {
                throw new RemoteSegmentException(name, -1, segment.describe() + ": no manifest " + name + " (the plugin's "
                    + "key.prefix here is '" + segment.keyPrefix() + "'; is it the broker's?)");
            }
            AivenManifest m = AivenManifest.parse(data, name);
            m.check(segment, name);
            manifest = m;
        }
        return manifest;
    }

    /** The segment's AES-GCM (its data key unwrapped once), or null when it is not encrypted. */
    synchronized AivenCipher cipher() throws IOException {
        AivenManifest m = manifest();
        if (m.keyId == null || cipher != null) {
            return cipher;
        }
        cipher = new AivenCipher(keys.unwrap(m.keyId, m.wrappedKey, shown(segment.manifest())), m.aad);
        return cipher;
    }

    /** The size of the {@code .log} Kafka wrote (the manifest's original file size). */
    long logSize() throws IOException {
        return manifest().originalFileSize;
    }

    /** The {@code .log} as Kafka wrote it, for positioned reads. */
    AivenChunkedInput openLog() throws IOException {
        return new AivenChunkedInput(store, new Path(segment.log()), shown(segment.log()), manifest(), cipher());
    }

    /**
     * The index {@code field} of the manifest ({@code offset}, {@code timestamp}, {@code transaction}, ...),
     * decrypted; null when the segment has none.
     */
    synchronized byte[] index(String field) throws IOException {
        if (indexes == null) {
            AivenManifest m = manifest();
            AivenCipher c = cipher();
            String name = shown(segment.indexes());
            long end = 0;
            for (long[] r : m.indexes.values()) {
                if (r != null && r[1] > 0) {
                    end = Math.max(end, r[0] + r[1]);
                }
            }
            byte[] whole = new byte[0];
            if (end > 0) {
                try {
                    whole = readWhole(new Path(segment.indexes()));
                } catch (FileNotFoundException e) {
                    throw new RemoteSegmentException(name, -1, segment.describe() + ": no object " + name);
                }
            }
            Map<String, byte[]> out = new java.util.HashMap<>();
            for (Map.Entry<String, long[]> e : m.indexes.entrySet()) {
                long[] r = e.getValue();
                if (r == null) {
                    out.put(e.getKey(), null);
                    continue;
                }
                if (r[1] == 0) {
                    out.put(e.getKey(), new byte[0]);
                    continue;
                }
                if (r[0] + r[1] > whole.length) {
                    throw new RemoteSegmentException(name, r[0], name + ": the " + e.getKey() + " index (bytes " + r[0] + ".."
                        + (r[0] + r[1]) + ") is cut short: the object is " + whole.length + " bytes, the manifest "
                        + "places indexes up to byte " + end);
                }
                String what = "the " + e.getKey() + " index";
                out.put(e.getKey(), c == null ? java.util.Arrays.copyOfRange(whole, (int) r[0], (int) (r[0] + r[1]))
                    : c.decrypt(whole, (int) r[0], (int) r[1], what, name, r[0]));
            }
            indexes = out;
        }
        return indexes.get(field);
    }

    private byte[] readWhole(Path p) throws IOException {
        long len = store.getFileStatus(p).getLen();
        if (len > Integer.MAX_VALUE - 16) {
            throw new RemoteSegmentException(shown(p.toString()), -1, shown(p.toString()) + ": " + len + " bytes, too large to be this object");
        }
        byte[] data = new byte[(int) len];
        try (FSDataInputStream in = store.open(p)) {
            in.readFully(0, data);
        } catch (EOFException e) {
            throw new RemoteSegmentException(shown(p.toString()), len, shown(p.toString()) + ": the object ended before its " + len + " bytes");
        }
        return data;
    }
}
