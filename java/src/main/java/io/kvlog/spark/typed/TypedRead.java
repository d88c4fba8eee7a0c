package io.kvlog.spark.typed;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A read's typed keys and values (the JVM side of {@code kvlog.spark.typed}): the options {@code keyFormat},
 * {@code valueFormat}, {@code keySchema}, {@code valueSchema}, {@code keySubject}, {@code valueSubject},
 * {@code schemas} and {@code errors}; the Spark types of the columns, computed on the driver; and the decoders an
 * executor's reader runs. Sent to executors (the options and the {@code _schemas} partition discovery found);
 * each JVM replays a schema source once and keeps it.
 */
public final class TypedRead implements Serializable {
    private static final long serialVersionUID = 1L;
    static final String[] FORMATS = {"binary", "string", "registry", "avro", "protobuf", "json"};
    private static final Map<String, SchemaSource> SOURCES = new ConcurrentHashMap<>();
    private static final Map<String, Replayed> REPLAYED = new ConcurrentHashMap<>();

    private final HashMap<String, String> options = new HashMap<>(); // lower-cased keys
    private final String schemasDir; // the _schemas-0 partition of the read's own directories, or null
    private final HashMap<String, String> conf;

    private TypedRead(Map<String, String> given, String schemasDir, Map<String, String> conf) {
        given.forEach((k, v) -> options.put(k.toLowerCase(Locale.ROOT), v));
        this.schemasDir = schemasDir;
        this.conf = new HashMap<>(conf);
    }

    /** The read's typing, or null when keys and values stay bytes (a {@code schemas} option alone is refused). */
    public static TypedRead of(Map<String, String> options, String schemasDir, Map<String, String> conf) {
        TypedRead t = new TypedRead(options, schemasDir, conf);
        for (String part : new String[] {"key", "value"}) {
            String f = t.format(part);
            if (!List.of(FORMATS).contains(f)) {
                throw new IllegalArgumentException("option " + part + "Format=" + f + ": a format is one of "
                    + String.join(", ", FORMATS));
            }
            if (f.equals("protobuf")) {
                throw new IllegalArgumentException("option " + part + "Format=protobuf: the JVM scan does not decode "
                    + "Protobuf; kvlog's Python source does: format(\"kvlog_python\")");
            }
            if (f.equals("avro") && t.opt(part + "schema") == null) {
                throw new IllegalArgumentException("option " + part + "Format=avro reads payloads written with a "
                    + "schema given to it: give the option " + part + "Schema (its text or a file)");
            }
        }
        if (!t.typed("key") && !t.typed("value")) {
            if (t.opt("schemas") != null) {
                throw new IllegalArgumentException("option schemas is for typed keys or values: give keyFormat or "
                    + "valueFormat");
            }
            return null;
        }
        String mode = t.errors();
        if (!mode.equals("raise") && !mode.equals("null") && !mode.equals("deadletter")) {
            throw new IllegalArgumentException("option errors=" + mode + ": it is one of raise, null, deadletter");
        }
        return t;
    }

    private String opt(String lowerName) {
        return options.get(lowerName);
    }

    String format(String part) {
        String f = opt(part + "format");
        return f == null ? "binary" : f.strip().toLowerCase(Locale.ROOT);
    }

    public boolean typed(String part) {
        return !format(part).equals("binary");
    }

    String errors() {
        String e = opt("errors");
        return e == null ? "raise" : e.strip().toLowerCase(Locale.ROOT);
    }

    /** The columns a typed read adds after Spark's Kafka-source columns, in order. */
    public List<String> extraColumns() {
        List<String> out = new ArrayList<>();
        for (String part : new String[] {"key", "value"}) {
            if (format(part).equals("registry")) {
                out.add(part + "SchemaId");
            }
        }
        if (!errors().equals("raise")) {
            for (String part : new String[] {"key", "value"}) {
                if (typed(part)) {
                    out.add(part + "Error");
                }
            }
        }
        if (errors().equals("deadletter")) {
            for (String part : new String[] {"key", "value"}) {
                if (typed(part)) {
                    out.add(part + "Bytes");
                }
            }
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------- sources
    private Configuration hadoop() {
        Configuration c = new Configuration();
        conf.forEach(c::set);
        return c;
    }

    /**
     * The registry this read decodes with. A {@code _schemas} topic is replayed once per content: a session that
     * reads again after new versions were registered (an incremental export) replays it again, where a source
     * kept for the session's life would not know their ids.
     */
    SchemaSource source() {
        String given = opt("schemas");
        try {
            Path dir = null;
            String shown = given;
            if (given == null) {
                if (schemasDir == null) {
                    throw new SchemaException("the read's directories hold no _schemas topic: give the option "
                        + "schemas (a data directory or backup holding it, a registry URL, a folder of schema "
                        + "files)", true);
                }
                dir = new Path(schemasDir);
                Path root = dir.getParent();
                shown = "file".equals(root.toUri().getScheme()) ? root.toUri().getPath() : root.toString();
            } else if (!given.startsWith("http://") && !given.startsWith("https://")) {
                Path d = new Path(given, SchemasTopic.TOPIC + "-0");
                if (FileSystem.get(d.toUri(), hadoop()).exists(d)) {
                    dir = d;
                }
            }
            if (dir != null) {
                FileSystem fs = FileSystem.get(dir.toUri(), hadoop());
                String content = contentOf(fs, dir);
                String key = "topic=" + dir;
                Replayed known = REPLAYED.get(key);
                if (known != null && known.content().equals(content)) {
                    return known.source();
                }
                SchemasTopic read = SchemasTopic.read(fs, dir, shown);
                REPLAYED.put(key, new Replayed(content, read));
                return read;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return SOURCES.computeIfAbsent("schemas=" + given, k -> {
            if (given.startsWith("http://") || given.startsWith("https://")) {
                return new RestRegistry(given);
            }
            java.nio.file.Path local = given.contains("://") ? null : java.nio.file.Path.of(given);
            if (local != null && java.nio.file.Files.isDirectory(local)) {
                try {
                    return new SchemaFolder(local);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            throw new SchemaException("the option schemas=" + given + " names neither a registry URL, a folder of "
                + "schema files, nor a directory holding " + SchemasTopic.TOPIC + "-0", true);
        });
    }

    /** The segment files of a {@code _schemas} partition and their lengths: what changes when it grows. */
    private static String contentOf(FileSystem fs, Path dir) throws IOException {
        FileStatus[] files = fs.listStatus(dir);
        Arrays.sort(files, Comparator.comparing(f -> f.getPath().getName()));
        StringBuilder out = new StringBuilder();
        for (FileStatus f : files) {
            String name = f.getPath().getName();
            if (name.endsWith(".log")) {
                out.append(name).append(':').append(f.getLen()).append(';');
            }
        }
        return out.toString();
    }

    private record Replayed(String content, SchemasTopic source) {}

    private RegisteredSchema explicit(String part) throws IOException {
        String given = opt(part + "schema");
        if (given == null) {
            return null;
        }
        String text = given;
        String type = null;
        java.nio.file.Path f = given.contains("\n") || given.length() > 4096 ? null : java.nio.file.Path.of(given);
        if (f != null && java.nio.file.Files.isRegularFile(f)) {
            text = java.nio.file.Files.readString(f, StandardCharsets.UTF_8);
            type = SchemaFolder.typeOf(f);
        }
        if (type == null) {
            String fmt = format(part);
            type = fmt.equals("json") ? "JSON" : fmt.equals("protobuf") ? "PROTOBUF" : "AVRO";
        }
        return new RegisteredSchema(-1, type, text, List.of(), null, null, false);
    }

    /** The reader schema of {@code part} of {@code topic}'s records (the registry and Avro formats). */
    RegisteredSchema reader(String topic, String part) {
        try {
            RegisteredSchema given = explicit(part);
            if (given != null) {
                return given;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String subject = opt(part + "subject");
        return source().version(subject != null ? subject : topic + "-" + part, null);
    }

    // ----------------------------------------------------------------------------------------- schemas
    /** The Spark type of {@code part} of {@code topic}'s records. */
    public DataType type(String topic, String part) {
        String f = format(part);
        if (f.equals("string")) {
            return DataTypes.StringType;
        }
        if (f.equals("json")) {
            throw new IllegalArgumentException("option " + part + "Format=json: the JVM scan does not decode JSON; "
                + "kvlog's Python source does: format(\"kvlog_python\")");
        }
        RegisteredSchema r = reader(topic, part);
        return switch (r.type()) {
            case "AVRO" -> AvroSpark.sparkType(AvroPart.parse(f.equals("registry") ? source() : null, r));
            case "JSON" -> throw new IllegalArgumentException("the " + part + "s of topic " + topic + " are JSON Schema "
                + "values: the JVM scan does not decode JSON; kvlog's Python source does: format(\"kvlog_python\")");
            default -> throw new IllegalArgumentException("the " + part + "s of topic " + topic + " are Protobuf: the "
                + "JVM scan does not decode Protobuf; kvlog's Python source does: format(\"kvlog_python\")");
        };
    }

    /**
     * The read's schema: {@code base} (Spark's Kafka-source columns) with typed keys and values and the added
     * columns; every topic's types must agree.
     */
    public StructType schema(StructType base, List<String> topics) {
        StructType out = new StructType();
        for (StructField f : base.fields()) {
            if ((f.name().equals("key") || f.name().equals("value")) && typed(f.name())) {
                out = out.add(f.name(), agreed(f.name(), topics), true);
            } else {
                out = out.add(f);
            }
        }
        for (String c : extraColumns()) {
            DataType t = c.endsWith("SchemaId") ? DataTypes.IntegerType
                : c.endsWith("Error") ? DataTypes.StringType : DataTypes.BinaryType;
            out = out.add(c, t, true);
        }
        return out;
    }

    private DataType agreed(String part, List<String> topics) {
        if (topics.isEmpty()) {
            throw new IllegalArgumentException("no topic to type the " + part + "s by");
        }
        DataType first = null;
        String firstTopic = null;
        for (String t : topics) {
            DataType dt;
            try {
                dt = type(t, part);
            } catch (SchemaException e) {
                throw new IllegalArgumentException("the " + part + "s of topic " + t + ": " + e.getMessage(), e);
            }
            if (first == null) {
                first = dt;
                firstTopic = t;
            } else if (!first.equals(dt)) {
                throw new IllegalArgumentException("the " + part + "s of topics " + firstTopic + " and " + t
                    + " have different types (" + first.simpleString() + " and " + dt.simpleString()
                    + "): scan them one at a time");
            }
        }
        return first;
    }

    // ---------------------------------------------------------------------------------------- decoders
    /** A decoder of {@code part} of {@code topic}'s records into columns of type {@code type} (maybe pruned). */
    public PartDecoder decoder(String topic, String part, DataType type) {
        boolean raise = errors().equals("raise");
        String f = format(part);
        if (f.equals("string")) {
            return new StringPart(part, raise);
        }
        boolean registry = f.equals("registry");
        SchemaSource src = registry ? source() : null;
        RegisteredSchema r = reader(topic, part);
        Schema reader = AvroPart.parse(src, r);
        return new AvroPart(part, registry, raise, src, reader, type);
    }
}
