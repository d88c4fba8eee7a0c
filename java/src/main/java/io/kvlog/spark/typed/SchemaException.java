package io.kvlog.spark.typed;

/**
 * A schema that cannot be found or used (as {@code kvlog.errors.SchemaError} and {@code SchemaNotFoundError}):
 * an id, subject or version the source does not hold, text that does not parse, a type that has no Spark type.
 */
public class SchemaException extends IllegalArgumentException {
    private final boolean notFound;

    public SchemaException(String message) {
        this(message, false);
    }

    public SchemaException(String message, boolean notFound) {
        super(message);
        this.notFound = notFound;
    }

    /** Whether the schema is not there (rather than unusable). */
    public boolean notFound() {
        return notFound;
    }
}
