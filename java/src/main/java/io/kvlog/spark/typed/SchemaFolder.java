package io.kvlog.spark.typed;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A folder of schema files as a source ({@code kvlog.schemas.files}): {@code <id>.avsc|.proto|.json} for schema
 * ids, {@code <subject>/<version>.<ext>} for subjects' versions (a version's id: the id-named file with its text).
 */
public final class SchemaFolder implements SchemaSource {
    private final Path root;
    private final Map<Integer, RegisteredSchema> byId = new HashMap<>();
    private final Map<String, TreeMap<Integer, RegisteredSchema>> subjects = new HashMap<>();

    public SchemaFolder(Path root) throws IOException {
        this.root = root;
        Map<String, Integer> texts = new HashMap<>();
        try (Stream<Path> files = Files.list(root)) {
            for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                String type = typeOf(f);
                String stem = stem(f);
                if (Files.isRegularFile(f) && type != null && stem.matches("\\d+")) {
                    String text = Files.readString(f, StandardCharsets.UTF_8);
                    int id = Integer.parseInt(stem);
                    byId.put(id, new RegisteredSchema(id, type, text, List.of(), null, null, false));
                    texts.putIfAbsent(text, id);
                }
            }
        }
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path d : (Iterable<Path>) dirs.sorted()::iterator) {
                if (!Files.isDirectory(d)) {
                    continue;
                }
                TreeMap<Integer, RegisteredSchema> versions = new TreeMap<>();
                try (Stream<Path> files = Files.list(d)) {
                    for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                        String type = typeOf(f);
                        if (type != null && stem(f).matches("\\d+")) {
                            String text = Files.readString(f, StandardCharsets.UTF_8);
                            int v = Integer.parseInt(stem(f));
                            versions.put(v, new RegisteredSchema(texts.getOrDefault(text, -1), type, text, List.of(),
                                d.getFileName().toString(), v, false));
                        }
                    }
                }
                if (!versions.isEmpty()) {
                    subjects.put(d.getFileName().toString(), versions);
                }
            }
        }
    }

    private static String stem(Path f) {
        String n = f.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return dot < 0 ? n : n.substring(0, dot);
    }

    static String typeOf(Path f) {
        String n = f.getFileName().toString();
        if (n.endsWith(".avsc") || n.endsWith(".avro")) {
            return "AVRO";
        }
        if (n.endsWith(".proto")) {
            return "PROTOBUF";
        }
        return n.endsWith(".json") ? "JSON" : null;
    }

    @Override
    public String description() {
        return "the schema files in " + root;
    }

    @Override
    public RegisteredSchema byId(int id) {
        RegisteredSchema s = byId.get(id);
        if (s == null) {
            throw new SchemaException("no file " + id + ".avsc, .proto or .json in " + root, true);
        }
        return s;
    }

    @Override
    public RegisteredSchema version(String subject, Integer version) {
        TreeMap<Integer, RegisteredSchema> versions = subjects.get(subject);
        if (versions == null) {
            throw new SchemaException("no folder " + subject + "/ of versions in " + root, true);
        }
        RegisteredSchema s = version == null ? versions.lastEntry().getValue() : versions.get(version);
        if (s == null) {
            throw new SchemaException("no file " + subject + "/" + version + ".* in " + root, true);
        }
        return s;
    }
}
