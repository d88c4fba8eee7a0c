package io.kvlog.spark.log;

/**
 * Bad bytes in a log file: the message names the file and the byte position of the batch, which {@link #file()}
 * and {@link #position()} carry too.
 */
public final class CorruptLogException extends RuntimeException {
    private static final long serialVersionUID = 2L;

    private final String file;
    private final long position;

    public CorruptLogException(String file, long position, String problem) {
        this(file, position, problem, null);
    }

    public CorruptLogException(String file, long position, String problem, Throwable cause) {
        super("corrupt record batch in " + file + " at position " + position + ": " + problem, cause);
        this.file = file;
        this.position = position;
    }

    /** The log file (as shown: credentials and query removed). */
    public String file() {
        return file;
    }

    /** The byte position of the damaged batch in {@link #file()}. */
    public long position() {
        return position;
    }
}
