package io.kvlog.spark.typed;

/**
 * A record's key or value that does not decode with its schema (as {@code kvlog.errors.DeserializationError}): the
 * message names the topic, partition, offset and schema id, and what failed.
 */
public final class DeserializationException extends IllegalStateException {
    public DeserializationException(String part, String reason, String topic, int partition, long offset,
                                    Integer schemaId) {
        super(part + ": " + reason + " (" + topic + "-" + partition + ", offset " + offset
            + (schemaId != null ? ", schema id " + schemaId : "") + ")");
    }
}
