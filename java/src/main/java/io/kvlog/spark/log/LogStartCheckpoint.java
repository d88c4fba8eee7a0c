package io.kvlog.spark.log;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** A data directory's {@code log-start-offset-checkpoint}: version 0, a count, then "topic partition offset" lines. */
public final class LogStartCheckpoint {
    static final String FILE = "log-start-offset-checkpoint";

    private LogStartCheckpoint() {
    }

    /**
     * Per partition, the larger of the {@code replication-offset-checkpoint} (high watermark) and the
     * {@code recovery-point-offset-checkpoint}: evidence of how far the log was durably written. A malformed
     * file is no evidence (Kafka falls back to full recovery for it).
     */
    public static Map<TopicPartition, Long> durableEnds(FileSystem fs, Path root) throws IOException {
        Map<TopicPartition, Long> out = new HashMap<>();
        for (String name : new String[] {"replication-offset-checkpoint", "recovery-point-offset-checkpoint"}) {
            try {
                read(fs, root, name).forEach((tp, offset) -> out.merge(tp, offset, Math::max));
            } catch (IllegalStateException e) {
                // a damaged checkpoint proves nothing
            }
        }
        return out;
    }

    public static Map<TopicPartition, Long> read(FileSystem fs, Path root) throws IOException {
        return read(fs, root, FILE);
    }

    /** The {@code cleaner-offset-checkpoint}'s partitions (compacted at least once); null when it is unreadable. */
    public static Map<TopicPartition, Long> cleaned(FileSystem fs, Path root) throws IOException {
        try {
            return read(fs, root, "cleaner-offset-checkpoint");
        } catch (IllegalStateException e) {
            return null; // unreadable: any partition may have been compacted
        }
    }

    static Map<TopicPartition, Long> read(FileSystem fs, Path root, String name) throws IOException {
        Path file = new Path(root, name);
        Map<TopicPartition, Long> out = new HashMap<>();
        String text;
        try (InputStream in = fs.open(file)) {
            text = new String(in.readNBytes(16 << 20), StandardCharsets.UTF_8);
        } catch (FileNotFoundException e) {
            return out;
        }
        if (text.isEmpty()) {
            return out;
        }
        String[] lines = text.split("\n", -1);
        int n = lines.length;
        if (lines[n - 1].isEmpty()) {
            n--;
        }
        try {
            if (n < 2 || Integer.parseInt(lines[0].trim()) != 0) {
                throw new IllegalStateException("checkpoint " + file + ": malformed header or unknown version");
            }
            int count = Integer.parseInt(lines[1].trim());
            if (count != n - 2) {
                throw new IllegalStateException("checkpoint " + file + ": header says " + count + " entries, found "
                    + (n - 2));
            }
            for (int i = 2; i < n; i++) {
                String[] f = lines[i].trim().split(" ");
                if (f.length != 3) {
                    throw new IllegalStateException("checkpoint " + file + ": malformed line '" + lines[i] + "'");
                }
                out.put(new TopicPartition(f[0], Integer.parseInt(f[1])), Long.parseLong(f[2]));
            }
        } catch (NumberFormatException e) {
            throw new IllegalStateException("checkpoint " + file + ": malformed number (" + e.getMessage() + ")");
        }
        return out;
    }
}
