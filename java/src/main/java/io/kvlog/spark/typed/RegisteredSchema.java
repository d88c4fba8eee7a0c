package io.kvlog.spark.typed;

import java.util.List;

/**
 * One schema as a registry holds it (as {@code kvlog.schemas.registry.RegisteredSchema}): its id (-1: not
 * registered, a schema given as text), type ({@code AVRO}, {@code PROTOBUF}, {@code JSON}), text, references, and
 * when known one subject and version it is registered under and whether that version is deleted.
 */
public record RegisteredSchema(int id, String type, String text, List<Reference> references, String subject,
                               Integer version, boolean deleted) {

    /** A named dependency: another subject's version. */
    public record Reference(String name, String subject, int version) {
    }

    /** A registry's schema type (absent: Avro; Karapace's {@code JSONSCHEMA}: JSON). */
    public static String normalizeType(String t) {
        if (t == null || t.isEmpty()) {
            return "AVRO";
        }
        String up = t.toUpperCase(java.util.Locale.ROOT);
        if (up.equals("JSONSCHEMA")) {
            up = "JSON";
        }
        if (!up.equals("AVRO") && !up.equals("PROTOBUF") && !up.equals("JSON")) {
            throw new SchemaException("unknown schema type " + t + " (a registry's types are AVRO, PROTOBUF, JSON)");
        }
        return up;
    }
}
