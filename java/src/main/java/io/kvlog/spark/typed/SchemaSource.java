package io.kvlog.spark.typed;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Where registered schemas come from (as {@code kvlog.schemas.registry.SchemaSource}): the registry's
 * {@code _schemas} topic ({@link SchemasTopic}), its REST API ({@link RestRegistry}), a folder of schema files
 * ({@link SchemaFolder}). Lookups throw {@link SchemaException} with {@code notFound()} for what the source does
 * not hold. Sources are shared between a JVM's tasks: implementations are thread-safe.
 */
public interface SchemaSource {
    /** What the source is, for messages. */
    String description();

    /** The schema registered with {@code id} (soft-deleted ones too: old records still name them). */
    RegisteredSchema byId(int id);

    /** A subject's version; {@code version} null: its latest version that is not deleted. */
    RegisteredSchema version(String subject, Integer version);

    /** The schema whose GUID is {@code guid} (the GUID form of the wire format). */
    default RegisteredSchema byGuid(java.util.UUID guid) {
        throw new SchemaException(description() + " cannot look schemas up by GUID (" + guid + ")", true);
    }

    /** {@code schema}'s references with the schemas they name, depth first, each once. */
    default List<ReferencedSchema> references(RegisteredSchema schema) {
        List<ReferencedSchema> out = new ArrayList<>();
        visit(schema, out, new HashSet<>(), 0);
        return out;
    }

    private void visit(RegisteredSchema s, List<ReferencedSchema> out, Set<String> seen, int depth) {
        if (depth > 64) {
            throw new SchemaException("schema references nested more than 64 deep (a cycle?)");
        }
        for (RegisteredSchema.Reference ref : s.references()) {
            if (!seen.add(ref.subject() + "/" + ref.version())) {
                continue;
            }
            RegisteredSchema target;
            try {
                target = version(ref.subject(), ref.version());
            } catch (SchemaException e) {
                throw new SchemaException("the reference " + ref.name() + " names " + ref.subject() + " version "
                    + ref.version() + ", which " + description() + " does not hold: " + e.getMessage(), true);
            }
            visit(target, out, seen, depth + 1);
            out.add(new ReferencedSchema(ref, target));
        }
    }

    /** A reference and the schema it names. */
    record ReferencedSchema(RegisteredSchema.Reference reference, RegisteredSchema schema) {
    }
}
