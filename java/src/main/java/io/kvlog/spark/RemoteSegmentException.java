package io.kvlog.spark;

/**
 * A tiered topic's remote history cannot be read as the broker would serve it: a remote segment's object is
 * missing or is not the segment {@code __remote_log_metadata} describes, or no remote segment holds offsets the
 * log needs (a hole). The message names the object (credentials and query removed) or the offsets.
 */
public final class RemoteSegmentException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RemoteSegmentException(String message) {
        super(message);
    }

    public RemoteSegmentException(String message, Throwable cause) {
        super(message, cause);
    }
}
