package io.kvlog.spark.typed;

/**
 * A payload that does not decode: {@code code} is the reason's number in the Python kernels' list
 * ({@code kvlog.schemas.decoding.REASONS}), so both engines say the same of the same bytes.
 */
final class ValueException extends RuntimeException {
    final int code;

    ValueException(int code, String message) {
        super(message, null, false, false);
        this.code = code;
    }
}
