package io.kvlog.spark.tiered;

/**
 * A tiered topic's remote history cannot be read as the broker would serve it: a remote segment's object is
 * missing, cut short, fails its checks, or is not the segment {@code __remote_log_metadata} describes, or no remote
 * segment holds offsets the log needs (a hole). The message names the object (credentials and query removed) or the
 * offsets; {@link #object()} and {@link #position()} carry the object and the byte position for code that handles
 * the failure.
 */
public final class RemoteSegmentException extends RuntimeException {
    private static final long serialVersionUID = 2L;

    private final String object;
    private final long position;

    /** A failure not tied to one object (the lineage of the remote segments, say). */
    public RemoteSegmentException(String message) {
        this(null, -1, message);
    }

    /** A failure of {@code object} (as shown: credentials removed), at byte {@code position} of it, or -1. */
    public RemoteSegmentException(String object, long position, String message) {
        super(message);
        this.object = object;
        this.position = position;
    }

    /** The object (as shown, without credentials), or null when the failure is not one object's. */
    public String object() {
        return object;
    }

    /** The byte position in {@link #object()} where the failure is, or -1 for the object as a whole. */
    public long position() {
        return position;
    }
}
