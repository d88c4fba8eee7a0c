package io.kvlog.spark;

/** Bad bytes in a log file: the message names the file and the byte position of the batch. */
public final class CorruptLogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CorruptLogException(String file, long position, String problem) {
        super("corrupt record batch in " + file + " at position " + position + ": " + problem);
    }

    public CorruptLogException(String file, long position, String problem, Throwable cause) {
        super("corrupt record batch in " + file + " at position " + position + ": " + problem, cause);
    }
}
