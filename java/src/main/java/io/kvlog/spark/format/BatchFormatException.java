package io.kvlog.spark.format;

/** A problem found while decoding one batch, before the caller knows the file and position to name. */
public final class BatchFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    public BatchFormatException(String problem) {
        super(problem);
    }

    BatchFormatException(String problem, Throwable cause) {
        super(problem, cause);
    }
}
