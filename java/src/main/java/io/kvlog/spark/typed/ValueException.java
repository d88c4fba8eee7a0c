package io.kvlog.spark.typed;

/**
 * A payload that does not decode: {@code code} is the reason's number in the Python kernels' list
 * ({@code kvlog.schemas.decoding.REASONS}), so both engines say the same of the same bytes.
 */
final class ValueException extends RuntimeException {
    final int code;
    private String field; // the writer schema's path of the value that failed ("" at the top)
    private int pos = -1; // where in the payload (its prefix counted), as the Python kernels say it

    ValueException(int code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    /** Places the failure, once: the innermost value's path and position win. */
    ValueException at(String path, int position) {
        if (pos < 0) {
            field = path;
            pos = position;
        }
        return this;
    }

    /** Places the failure at {@code position} (once), with no path yet: {@link #within} builds it outwards. */
    ValueException at(int position) {
        if (pos < 0) {
            field = "";
            pos = position;
        }
        return this;
    }

    /**
     * Puts the segment of an enclosing value in front of the path, as the failure passes out through it: a field's
     * name ({@code a.b}), or {@code []}/{@code {}} for an array's or a map's items; {@code ""} adds nothing.
     */
    ValueException within(String segment) {
        if (segment.isEmpty() || field == null) {
            return this;
        }
        if (field.isEmpty()) {
            field = segment;
        } else if (field.startsWith("[") || field.startsWith("{")) {
            field = segment + field;
        } else {
            field = segment + "." + field;
        }
        return this;
    }

    /** Moves the position by the bytes of the payload's prefix (read apart from the value). */
    ValueException shifted(int by) {
        if (pos >= 0) {
            pos += by;
        }
        return this;
    }

    /** The reason the Python source gives: the message, the field and the byte. */
    String reason() {
        if (pos < 0) {
            return getMessage();
        }
        return getMessage() + (field == null || field.isEmpty() ? "" : " in field " + field)
            + " (byte " + pos + " of the payload)";
    }
}
