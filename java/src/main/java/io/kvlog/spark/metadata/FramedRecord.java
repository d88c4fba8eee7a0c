package io.kvlog.spark.metadata;

import io.kvlog.spark.format.BatchFormatException;

/**
 * A record value framed as KRaft frames its metadata records, read field by field: the frame (unsigned varints:
 * frame version 1, api key, version), then the message's fields up to the value's end. What
 * {@link KraftMetadataRecord} ({@code __cluster_metadata}) and {@link RemoteLogMetadataRecord}
 * ({@code __remote_log_metadata}) share; each words the problems of its varints its own way, as
 * {@code kvlog.internal_topics} words them for each.
 */
abstract class FramedRecord {
    static final int FRAME_VERSION = 1;

    final byte[] buf;
    int pos;
    final int end;
    /** The problems of a varint (its name for {@code %s}): running past the value's end, longer than 32 bits. */
    private final String pastEnd;
    private final String tooLong;

    FramedRecord(byte[] buf, int pos, String pastEnd, String tooLong) {
        this.buf = buf;
        this.pos = pos;
        this.end = buf.length;
        this.pastEnd = pastEnd;
        this.tooLong = tooLong;
    }

    /**
     * Reads the frame, its fields named {@code frameName}, {@code apiKeyName} and "version"; returns the api key
     * and the version. A frame version other than 1 is refused.
     */
    final long[] frame(String frameName, String apiKeyName) throws BatchFormatException {
        long frame = uvarint(frameName);
        if (frame != FRAME_VERSION) {
            throw new BatchFormatException("unknown metadata frame version " + frame);
        }
        long apiKey = uvarint(apiKeyName);
        return new long[] {apiKey, uvarint("version")};
    }

    /** Kafka's unsigned varint: at most 5 bytes, a 32-bit value. */
    final long uvarint(String what) throws BatchFormatException {
        long value = 0;
        for (int i = 0; i < 5; i++) {
            if (pos >= end) {
                throw new BatchFormatException(String.format(pastEnd, what));
            }
            int b = buf[pos++] & 0xFF;
            value |= (long) (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                if (value >= 1L << 32) {
                    break;
                }
                return value;
            }
        }
        throw new BatchFormatException(String.format(tooLong, what));
    }

    /** The message {@code type} must end where the value ends. */
    final void finish(String type) throws BatchFormatException {
        if (pos != end) {
            throw new BatchFormatException((end - pos) + " bytes left after the " + type);
        }
    }
}
