package io.kvlog.spark.typed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvlog.spark.metadata.InternalTopicLog;
import io.kvlog.spark.log.TopicPartition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A schema registry's {@code _schemas} topic replayed offline into the registry's state, by the rules of
 * {@code kvlog.schemas.schemas_topic} and docs/schemas-topic.md: the last record of each key wins; SCHEMA keys of
 * magic 0 or 1; a soft delete keeps an id resolvable, a tombstone (null or empty value) drops the version and the
 * id once no version names it; DELETE_SUBJECT soft-deletes the versions up to its own; CLEAR_SUBJECT drops a
 * subject's deleted versions; an id that already names another schema in its context is ignored; records that
 * do not parse are skipped and counted in the message of a lookup that misses.
 */
public final class SchemasTopic implements SchemaSource {
    public static final String TOPIC = "_schemas";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DEFAULT_CONTEXT = ".";

    private final String description;
    private final Map<String, RegisteredSchema> versions = new TreeMap<>(); // ctx \0 subject \0 version (zero-padded)
    private final Map<String, RegisteredSchema> ids = new HashMap<>();      // ctx \0 id
    private final Map<String, Set<String>> idUsers = new HashMap<>();
    private final List<String> problems = new ArrayList<>();
    private int records;

    private SchemasTopic(String description) {
        this.description = description;
    }

    /** Replays the partition directory {@code dir} ({@code _schemas-0}). */
    public static SchemasTopic read(FileSystem fs, Path dir, String shown) throws IOException {
        SchemasTopic out = new SchemasTopic("the " + TOPIC + " topic of " + shown);
        for (InternalTopicLog.KeyValue r : InternalTopicLog.records(fs, dir, new TopicPartition(TOPIC, 0))) {
            out.apply(r.key(), r.value(), r.offset());
        }
        return out;
    }

    public List<String> problems() {
        return problems;
    }

    @Override
    public String description() {
        return description;
    }

    static String[] splitContext(String subject) {
        if (subject.startsWith(":.") && subject.indexOf(':', 2) > 0) {
            int end = subject.indexOf(':', 2);
            return new String[] {subject.substring(1, end), subject.substring(end + 1)};
        }
        return new String[] {DEFAULT_CONTEXT, subject};
    }

    private static String slot(String ctx, String subject, int version) {
        return ctx + '\0' + subject + '\0' + String.format("%010d", version);
    }

    void apply(byte[] key, byte[] value, long offset) {
        records++;
        if (key == null) {
            problems.add("offset " + offset + ": a record without a key");
            return;
        }
        JsonNode k;
        JsonNode v = null;
        try {
            k = JSON.readTree(key);
        } catch (IOException e) {
            problems.add("offset " + offset + ": a key that is not JSON");
            return;
        }
        if (k == null || !k.isObject()) {
            problems.add("offset " + offset + ": a key that is not a JSON object");
            return;
        }
        String keytype = k.path("keytype").asText("");
        if (value != null && value.length > 0) { // (Karapace's tombstones are empty values)
            try {
                v = JSON.readTree(value);
            } catch (IOException e) {
                problems.add("offset " + offset + ": a " + keytype + " value that is not JSON");
                return;
            }
            if (v == null || !v.isObject()) {
                problems.add("offset " + offset + ": a " + keytype + " value that is not a JSON object");
                return;
            }
        }
        try {
            switch (keytype) {
                case "SCHEMA" -> schema(k, v, offset);
                case "DELETE_SUBJECT" -> deleteSubject(k, v);
                case "CLEAR_SUBJECT" -> clearSubject(k, v);
                default -> {
                    // CONFIG, MODE, NOOP, CONTEXT and what later registries add: nothing a reader needs
                }
            }
        } catch (RuntimeException e) {
            problems.add("offset " + offset + ": a " + keytype + " record that cannot be read (" + e.getMessage() + ")");
        }
    }

    private static int intField(JsonNode n, String name) {
        JsonNode f = n.get(name);
        if (f == null || !f.canConvertToInt()) {
            throw new IllegalArgumentException("no " + name);
        }
        return f.asInt();
    }

    private static String textField(JsonNode n, String name) {
        JsonNode f = n.get(name);
        if (f == null || !f.isTextual()) {
            throw new IllegalArgumentException("no " + name);
        }
        return f.asText();
    }

    private void schema(JsonNode k, JsonNode v, long offset) {
        int magic = k.path("magic").asInt(-1);
        if (magic != 0 && magic != 1) {
            problems.add("offset " + offset + ": a SCHEMA key of magic " + k.get("magic") + " (0 and 1 are known)");
            return;
        }
        String[] cs = splitContext(textField(k, "subject"));
        int version = intField(k, "version");
        String at = slot(cs[0], cs[1], version);
        if (v == null) {
            drop(at);
            return;
        }
        int id = intField(v, "id");
        String text = textField(v, "schema");
        List<RegisteredSchema.Reference> refs = new ArrayList<>();
        for (JsonNode r : v.path("references")) {
            refs.add(new RegisteredSchema.Reference(textField(r, "name"), textField(r, "subject"),
                intField(r, "version")));
        }
        String type = RegisteredSchema.normalizeType(v.hasNonNull("schemaType") ? v.get("schemaType").asText() : null);
        RegisteredSchema reg = new RegisteredSchema(id, type, text, List.copyOf(refs), cs[1], version,
            v.path("deleted").asBoolean(false));
        String idKey = cs[0] + '\0' + id;
        RegisteredSchema first = ids.get(idKey);
        Set<String> users = idUsers.get(idKey);
        if (first != null && (!first.text().equals(text) || !first.type().equals(type)) && users != null
            && !users.equals(Set.of(at))) {
            problems.add("offset " + offset + ": id " + id + " already names another schema; this record is ignored,"
                + " as the registry ignores it");
            return;
        }
        RegisteredSchema old = versions.get(at);
        if (old != null && old.id() != id) {
            release(cs[0] + '\0' + old.id(), at);
        }
        versions.put(at, reg);
        if (first == null || users == null || users.isEmpty()) {
            ids.put(idKey, reg);
        }
        idUsers.computeIfAbsent(idKey, x -> new HashSet<>()).add(at);
    }

    private void drop(String at) {
        RegisteredSchema old = versions.remove(at);
        if (old != null) {
            release(at.substring(0, at.indexOf('\0')) + '\0' + old.id(), at);
        }
    }

    private void release(String idKey, String at) {
        Set<String> users = idUsers.get(idKey);
        if (users == null) {
            return;
        }
        users.remove(at);
        if (users.isEmpty()) {
            idUsers.remove(idKey);
            ids.remove(idKey);
        }
    }

    private void deleteSubject(JsonNode k, JsonNode v) {
        if (v == null) {
            return;
        }
        String[] cs = splitContext(textField(k, "subject"));
        int upto = intField(v, "version");
        String prefix = cs[0] + '\0' + cs[1] + '\0';
        for (Map.Entry<String, RegisteredSchema> e : versions.entrySet()) {
            RegisteredSchema s = e.getValue();
            if (e.getKey().startsWith(prefix) && s.version() <= upto && !s.deleted()) {
                e.setValue(new RegisteredSchema(s.id(), s.type(), s.text(), s.references(), s.subject(), s.version(),
                    true));
            }
        }
    }

    private void clearSubject(JsonNode k, JsonNode v) {
        if (v == null) {
            return;
        }
        String[] cs = splitContext(textField(k, "subject"));
        String prefix = cs[0] + '\0' + cs[1] + '\0';
        for (String at : new ArrayList<>(versions.keySet())) {
            if (at.startsWith(prefix) && versions.get(at).deleted()) {
                drop(at);
            }
        }
    }

    private String missing(String what) {
        String tail = problems.isEmpty() ? "" : "; " + problems.size() + " record(s) of it could not be read, the first: "
            + problems.get(0);
        return what + " in " + description + " (" + records + " records replayed)" + tail;
    }

    @Override
    public RegisteredSchema byId(int id) {
        RegisteredSchema s = ids.get(DEFAULT_CONTEXT + '\0' + id);
        if (s == null) {
            throw new SchemaException(missing("no schema with id " + id), true);
        }
        return s;
    }

    @Override
    public RegisteredSchema version(String subject, Integer version) {
        String[] cs = splitContext(subject);
        String prefix = cs[0] + '\0' + cs[1] + '\0';
        if (version == null) {
            RegisteredSchema latest = null;
            boolean any = false;
            for (Map.Entry<String, RegisteredSchema> e : versions.entrySet()) {
                if (e.getKey().startsWith(prefix)) {
                    any = true;
                    if (!e.getValue().deleted()) {
                        latest = e.getValue(); // (the map is ordered: the last live one is the highest)
                    }
                }
            }
            if (latest == null) {
                throw new SchemaException(missing(any ? "every version of subject '" + subject + "' is deleted"
                    : "no subject '" + subject + "'"), true);
            }
            return latest;
        }
        RegisteredSchema s = versions.get(slot(cs[0], cs[1], version));
        if (s == null) {
            throw new SchemaException(missing("no version " + version + " of subject '" + subject + "'"), true);
        }
        return s;
    }

    @Override
    public RegisteredSchema byGuid(UUID guid) {
        for (RegisteredSchema s : ids.values()) {
            if (guidOf(s).equals(guid)) {
                return s;
            }
        }
        throw new SchemaException(missing("no schema with GUID " + guid), true);
    }

    /** The GUID a registry gives a schema without metadata or rules: the MD5 of its text and references. */
    static UUID guidOf(RegisteredSchema s) {
        try {
            MessageDigest md = MessageDigest.getInstance("MD5");
            md.update(s.text().getBytes(StandardCharsets.UTF_8));
            for (RegisteredSchema.Reference r : s.references()) {
                md.update(r.name().getBytes(StandardCharsets.UTF_8));
                md.update(r.subject().getBytes(StandardCharsets.UTF_8));
                md.update(java.nio.ByteBuffer.allocate(4).putInt(r.version()).array());
            }
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(md.digest());
            return new UUID(b.getLong(), b.getLong());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
