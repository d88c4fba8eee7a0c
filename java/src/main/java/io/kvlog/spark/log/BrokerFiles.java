package io.kvlog.spark.log;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvlog.spark.fs.ExclusiveCreate;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The two small files a Kafka broker keeps in every partition directory, as {@code kvlog.broker_files} writes
 * and reads them: {@code partition.metadata} ({@code "version: 0\ntopic_id: <id>"}, Kafka's
 * {@code PartitionMetadataFile}; the id is 16 bytes in unpadded base64url, Kafka's {@code Uuid} text) and
 * {@code leader-epoch-checkpoint} (Kafka's text checkpoint: {@code 0}, a count, {@code <epoch> <start offset>}
 * lines). The sink writes a topic's id into every partition it commits (the id {@code kvlog-topics.json} or an
 * existing partition gives the topic, else a new one), and keeps the checkpoint consistent with its batches,
 * which carry no leader epoch (-1): empty for a new partition, its first entry moved to the new log start after
 * an overwrite.
 */
public final class BrokerFiles {
    public static final String PARTITION_METADATA = "partition.metadata";
    static final String LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint";
    private static final String ZERO_ID = "AAAAAAAAAAAAAAAAAAAAAA";
    private static final String METADATA_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAQ";
    private static final Pattern ID_TEXT = Pattern.compile("[A-Za-z0-9_-]{22}(==)?");
    private static final Pattern LINE = Pattern.compile("([^:]*):\\s+(.*)", Pattern.DOTALL);

    private BrokerFiles() {
    }

    /** A random id as Kafka's {@code Uuid.randomUuid}: a version-4 UUID, not reserved, not starting with '-'. */
    public static String newTopicId() {
        while (true) {
            UUID u = UUID.randomUUID();
            String id = idText(ByteBuffer.allocate(16).putLong(u.getMostSignificantBits())
                .putLong(u.getLeastSignificantBits()).array());
            if (!id.equals(ZERO_ID) && !id.equals(METADATA_TOPIC_ID) && !id.startsWith("-")) {
                return id;
            }
        }
    }

    private static String idText(byte[] raw) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    }

    /** {@code text} as Kafka's {@code Uuid.fromString} takes it (16 bytes, not the zero id), canonical; null if not. */
    static String canonicalId(String text) {
        if (text == null || !ID_TEXT.matcher(text).matches()) {
            return null;
        }
        String id = idText(Base64.getUrlDecoder().decode(text.substring(0, 22)));
        return id.equals(ZERO_ID) ? null : id;
    }

    /**
     * The topic id in {@code dir}'s partition.metadata; null when there is none, or when it holds no bytes or
     * only zeros (what a crash leaves of a write whose data never reached the disk). A file Kafka's reader would
     * refuse is an {@link IllegalStateException} naming it.
     */
    public static String readTopicId(FileSystem fs, Path dir) throws IOException {
        Path file = new Path(dir, PARTITION_METADATA);
        byte[] data;
        try (InputStream in = fs.open(file)) {
            data = in.readNBytes(4096);
        } catch (FileNotFoundException e) {
            return null;
        }
        boolean blank = true;
        for (byte b : data) {
            blank &= b == 0;
        }
        if (blank) {
            return null;
        }
        String[] lines = new String(data, StandardCharsets.UTF_8).replace("\r\n", "\n").replace('\r', '\n')
            .split("\n", -1);
        String[] keys = {"version", "topic_id"};
        String[] values = new String[2];
        for (int i = 0; i < 2; i++) {
            Matcher m = i < lines.length ? LINE.matcher(lines[i]) : null;
            if (m == null || !m.matches() || !m.group(1).equals(keys[i])) {
                throw new IllegalStateException(file + ": line " + (i + 1) + " should be '" + keys[i] + ": <value>'");
            }
            values[i] = m.group(2);
        }
        int version;
        try {
            version = Integer.parseInt(values[0]);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(file + ": version '" + values[0] + "' is not an integer", e);
        }
        String id = canonicalId(values[1]);
        if (version < 0 || id == null) {
            throw new IllegalStateException(file + ": " + (version < 0 ? "unknown version " + version
                : "'" + values[1] + "' is not a topic id (22 base64url characters, not the zero id)"));
        }
        return id;
    }

    /** Writes {@code dir}'s partition.metadata for {@code topicId} (Kafka's bytes: no line end after the id). */
    public static void writeTopicId(FileSystem fs, Path dir, String topicId) throws IOException {
        write(fs, new Path(dir, PARTITION_METADATA), "version: 0\ntopic_id: " + topicId);
    }

    /**
     * The id {@code topic} has in the data directory {@code root}: its {@code topic_id} in kvlog-topics.json, else
     * the partition.metadata of one of its partition directories ({@code partitions}); null when none has one.
     */
    public static String topicIdOf(FileSystem fs, Path root, String topic, Collection<Integer> partitions)
            throws IOException {
        try (InputStream in = fs.open(new Path(root, "kvlog-topics.json"))) {
            JsonNode v = new ObjectMapper().readTree(in).path(topic).path("topic_id");
            String id = v.isTextual() ? canonicalId(v.asText()) : null;
            if (id != null) {
                return id;
            }
        } catch (FileNotFoundException e) {
            // no table: the partitions' files say
        } catch (IOException | RuntimeException e) {
            // a table kvlog cannot read is reported by kvlog verify; the partitions' files still say
        }
        for (int p : partitions) {
            String id = readTopicId(fs, new Path(root, topic + "-" + p));
            if (id != null) {
                return id;
            }
        }
        return null;
    }

    /** A leader-epoch-checkpoint's entries ({epoch, start offset}); null when it is absent or not readable. */
    public static List<long[]> readLeaderEpochs(FileSystem fs, Path dir) throws IOException {
        String text;
        try (InputStream in = fs.open(new Path(dir, LEADER_EPOCH_CHECKPOINT))) {
            text = new String(in.readNBytes(16 << 20), StandardCharsets.UTF_8);
        } catch (FileNotFoundException e) {
            return null;
        }
        List<long[]> out = new ArrayList<>();
        if (text.isEmpty()) {
            return out;
        }
        String[] lines = text.split("\n");
        try {
            if (lines.length < 2 || Integer.parseInt(lines[0].trim()) != 0
                    || Integer.parseInt(lines[1].trim()) != lines.length - 2) {
                return null;
            }
            for (int i = 2; i < lines.length; i++) {
                String[] f = lines[i].trim().split("\\s+");
                if (f.length != 2) {
                    return null;
                }
                out.add(new long[] {Integer.parseInt(f[0]), Long.parseLong(f[1])});
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return out;
    }

    /** Kafka's {@code truncateFromStart}: entries at or before {@code start} go, the last back at {@code start}. */
    public static List<long[]> truncateFromStart(List<long[]> entries, long start) {
        List<long[]> out = new ArrayList<>();
        long[] last = null;
        for (long[] e : entries) {
            if (e[1] <= start) {
                last = e;
            } else {
                out.add(e);
            }
        }
        if (last != null) {
            out.add(0, new long[] {last[0], start});
        }
        return out;
    }

    /** Kafka's {@code truncateFromEnd}: entries starting at or after {@code end} go. */
    public static List<long[]> truncateFromEnd(List<long[]> entries, long end) {
        List<long[]> out = new ArrayList<>();
        for (long[] e : entries) {
            if (e[1] < end) {
                out.add(e);
            }
        }
        return out;
    }

    public static void writeLeaderEpochs(FileSystem fs, Path dir, List<long[]> entries) throws IOException {
        StringBuilder sb = new StringBuilder("0\n").append(entries.size()).append('\n');
        for (long[] e : entries) {
            sb.append(e[0]).append(' ').append(e[1]).append('\n');
        }
        write(fs, new Path(dir, LEADER_EPOCH_CHECKPOINT), sb.toString());
    }

    public static boolean same(List<long[]> a, List<long[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (a.get(i)[0] != b.get(i)[0] || a.get(i)[1] != b.get(i)[1]) {
                return false;
            }
        }
        return true;
    }

    /** The whole file in one create (a PUT on an object store: it appears complete or not at all). */
    private static void write(FileSystem fs, Path file, String text) throws IOException {
        try (OutputStream out = ExclusiveCreate.overwrite(fs, file, 4096)) {
            out.write(text.getBytes(StandardCharsets.US_ASCII));
        }
    }
}
