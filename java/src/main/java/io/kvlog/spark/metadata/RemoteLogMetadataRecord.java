package io.kvlog.spark.metadata;

import io.kvlog.spark.format.BatchFormatException;
import io.kvlog.spark.format.Bytes;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.TreeMap;

/**
 * One record value of {@code __remote_log_metadata} (KIP-405), decoded as {@code kvlog.internal_topics} decodes
 * it: the frame of a KRaft metadata record (unsigned varints: frame version 1, api key, version), then one of four
 * messages, versions 0 and 1, flexible in every version (compact strings and bytes, a tagged-field section):
 * {@code RemoteLogSegmentMetadataRecord} (0), {@code RemoteLogSegmentMetadataUpdateRecord} (1),
 * {@code RemotePartitionDeleteMetadataRecord} (2) and {@code RemoteLogSegmentMetadataSnapshotRecord} (3). Layouts
 * follow Kafka's {@code storage/src/main/resources/message/Remote*Record.json}.
 *
 * <p>Bytes that do not decode are a {@link BatchFormatException}; a record type or version this does not know (a
 * newer broker) decodes to a record whose {@link #unknown} says so, which the replay lists and skips.
 */
public final class RemoteLogMetadataRecord extends FramedRecord {
    private static final String VARINT_PAST_END = "field %s: varint runs past the end of the bytes";
    private static final String VARINT_TOO_LONG = "field %s: varint is longer than 32 bits";
    static final int SEGMENT = 0;
    static final int UPDATE = 1;
    static final int PARTITION_DELETE = 2;
    static final int SNAPSHOT = 3;
    static final String[] TYPE_NAMES = {"RemoteLogSegmentMetadataRecord", "RemoteLogSegmentMetadataUpdateRecord",
        "RemotePartitionDeleteMetadataRecord", "RemoteLogSegmentMetadataSnapshotRecord"};
    static final String[] SEGMENT_STATES = {"COPY_SEGMENT_STARTED", "COPY_SEGMENT_FINISHED",
        "DELETE_SEGMENT_STARTED", "DELETE_SEGMENT_FINISHED"};
    static final String[] PARTITION_DELETE_STATES = {"DELETE_PARTITION_MARKED", "DELETE_PARTITION_STARTED",
        "DELETE_PARTITION_FINISHED"};

    final int apiKey;
    final int version;
    /** Non-null for a record type or version not known here: why it is skipped. */
    String unknown;

    // TopicIdPartition (segment id's, or the partition delete's own)
    String topic;
    String topicId;
    int partition;
    /** The segment id (Kafka's Uuid text), of the segment, update or snapshot record. */
    String segmentId;
    long startOffset;
    long endOffset;
    int brokerId;
    long maxTimestampMs;
    long eventTimestampMs;
    /** Leader epoch -> its first offset in the segment; a repeated epoch keeps its last entry (a HashMap). */
    final TreeMap<Integer, Long> leaderEpochs = new TreeMap<>();
    int leaderEpochEntries;
    int segmentSize;
    byte[] customMetadata;
    /** Segment state, or for a partition delete its state (int8 ids). */
    int state;
    boolean txnIndexEmpty;

    private RemoteLogMetadataRecord(byte[] buf, int pos, int apiKey, int version) {
        super(buf, pos, VARINT_PAST_END, VARINT_TOO_LONG);
        this.apiKey = apiKey;
        this.version = version;
    }

    String typeName() {
        return apiKey >= 0 && apiKey < TYPE_NAMES.length ? TYPE_NAMES[apiKey] : "record type " + apiKey;
    }

    public static String segmentState(int s) {
        return s >= 0 && s < SEGMENT_STATES.length ? SEGMENT_STATES[s] : "state " + s;
    }

    /** Decodes one record value (null: a record without a value, which is damage). */
    static RemoteLogMetadataRecord decode(byte[] value) throws BatchFormatException {
        if (value == null) {
            throw new BatchFormatException("a remote log metadata record without a value");
        }
        RemoteLogMetadataRecord head = new RemoteLogMetadataRecord(value, 0, -1, -1);
        long[] frame = head.frame("frameVersion", "apiKey");
        int apiKey = (int) frame[0];
        int version = (int) frame[1];
        RemoteLogMetadataRecord r = new RemoteLogMetadataRecord(value, head.pos, apiKey, version);
        if (apiKey < 0 || apiKey > SNAPSHOT) {
            r.unknown = "unknown remote log metadata record type " + apiKey;
            return r;
        }
        if (version > 1) {
            r.unknown = "unknown version " + version + " of " + TYPE_NAMES[apiKey] + " (known: 0-1)";
            return r;
        }
        switch (apiKey) {
            case SEGMENT -> r.segment(true);
            case UPDATE -> r.update();
            case PARTITION_DELETE -> r.partitionDelete();
            default -> r.segment(false);
        }
        r.finish(TYPE_NAMES[apiKey]);
        return r;
    }

    /** A segment record ({@code withId}: its RemoteLogSegmentId) or a snapshot record (its bare segment id). */
    private void segment(boolean withId) throws BatchFormatException {
        if (withId) {
            segmentIdStruct();
        } else {
            segmentId = uuid("segmentId");
        }
        startOffset = int64("startOffset");
        endOffset = int64("endOffset");
        brokerId = int32("brokerId");
        maxTimestampMs = int64("maxTimestampMs");
        eventTimestampMs = int64("eventTimestampMs");
        long n = uvarint("segmentLeaderEpochs") - 1;
        if (n < 0) {
            throw new BatchFormatException("null array in a non-nullable field (segmentLeaderEpochs)");
        }
        if (n * 13 > end - pos) {
            throw new BatchFormatException("array of " + n + " elements does not fit in the " + (end - pos)
                + " bytes left (segmentLeaderEpochs)");
        }
        leaderEpochEntries = (int) n;
        for (int i = 0; i < n; i++) {
            int epoch = int32("segmentLeaderEpochs.leaderEpoch");
            long offset = int64("segmentLeaderEpochs.offset");
            tags(null);
            leaderEpochs.put(epoch, offset);
        }
        segmentSize = int32("segmentSizeInBytes");
        customMetadata = bytes("customMetadata");
        state = int8("remoteLogSegmentState");
        tags("segment"); // tag 0: TxnIndexEmpty; tag 1 (v1): BrokerLeaderEpoch
    }

    private void update() throws BatchFormatException {
        segmentIdStruct();
        brokerId = int32("brokerId");
        eventTimestampMs = int64("eventTimestampMs");
        customMetadata = bytes("customMetadata");
        state = int8("remoteLogSegmentState");
        tags(null); // v1: BrokerLeaderEpoch, EndOffset (not needed by the replay)
    }

    private void partitionDelete() throws BatchFormatException {
        topicIdPartition();
        brokerId = int32("brokerId");
        eventTimestampMs = int64("eventTimestampMs");
        state = int8("remotePartitionDeleteState");
        tags(null);
    }

    private void segmentIdStruct() throws BatchFormatException {
        topicIdPartition();
        segmentId = uuid("remoteLogSegmentId.id");
        tags(null);
    }

    private void topicIdPartition() throws BatchFormatException {
        topic = string("topicIdPartition.name");
        topicId = uuid("topicIdPartition.id");
        partition = int32("topicIdPartition.partition");
        tags(null);
    }

    /**
     * A tagged-field section. {@code segment}: a segment or snapshot record's own, whose tag 0 is TxnIndexEmpty;
     * other tags are skipped (values the replay does not use, or tags of a newer version).
     */
    private void tags(String segment) throws BatchFormatException {
        long count = uvarint("tagged field count");
        if (count > end - pos) {
            throw new BatchFormatException(count + " tagged fields do not fit in the " + (end - pos) + " bytes left");
        }
        for (long i = 0; i < count; i++) {
            long tag = uvarint("tag");
            long size = uvarint("tagged field size");
            if (size > end - pos) {
                throw new BatchFormatException("tagged field " + tag + " of " + size + " bytes, " + (end - pos)
                    + " remain");
            }
            if (segment != null && tag == 0) {
                if (size < 1) {
                    throw new BatchFormatException("txnIndexEmpty needs 1 bytes, 0 remain");
                }
                txnIndexEmpty = buf[pos] != 0;
            }
            pos += (int) size;
        }
    }

    private void need(int n, String what) throws BatchFormatException {
        if (n > end - pos) {
            throw new BatchFormatException("field " + what + " needs " + n + " bytes, " + (end - pos) + " remain");
        }
    }

    private int int8(String what) throws BatchFormatException {
        need(1, what);
        return buf[pos++];
    }

    private int int32(String what) throws BatchFormatException {
        need(4, what);
        int v = Bytes.int32(buf, pos);
        pos += 4;
        return v;
    }

    private long int64(String what) throws BatchFormatException {
        need(8, what);
        long v = Bytes.int64(buf, pos);
        pos += 8;
        return v;
    }

    private String uuid(String what) throws BatchFormatException {
        need(16, what);
        String s = Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOfRange(buf, pos,
            pos + 16));
        pos += 16;
        return s;
    }

    private String string(String what) throws BatchFormatException {
        long n = uvarint(what) - 1;
        if (n < 0) {
            throw new BatchFormatException("null string in a non-nullable field (" + what + ")");
        }
        need((int) Math.min(n, Integer.MAX_VALUE), what);
        String s = new String(buf, pos, (int) n, StandardCharsets.UTF_8);
        pos += (int) n;
        return s;
    }

    private byte[] bytes(String what) throws BatchFormatException {
        long n = uvarint(what) - 1;
        if (n < 0) {
            return null;
        }
        need((int) Math.min(n, Integer.MAX_VALUE), what);
        byte[] out = java.util.Arrays.copyOfRange(buf, pos, pos + (int) n);
        pos += (int) n;
        return out;
    }

    /**
     * Kafka's exception message when the Java constructors refuse this record (the broker's metadata consumer
     * stops on it), else null; checks in the constructors' order, as {@code remote_log_text.refusal}.
     */
    String refusal() {
        boolean stateKnown = state >= 0 && state < SEGMENT_STATES.length;
        boolean epochsGiven = leaderEpochEntries > 0;
        switch (apiKey) {
            case PARTITION_DELETE -> {
                return state >= 0 && state < PARTITION_DELETE_STATES.length ? null : "null";
            }
            case SEGMENT -> {
                if (startOffset < 0) {
                    return "Unexpected start offset = " + startOffset
                        + ". StartOffset for a remote segment cannot be negative";
                }
                if (endOffset < startOffset) {
                    return "Unexpected end offset = " + endOffset
                        + ". EndOffset for a remote segment cannot be less than startOffset = " + startOffset;
                }
                if (!epochsGiven) {
                    return "segmentLeaderEpochs can not be null or empty";
                }
                return stateKnown ? null : "state can not be null";
            }
            case UPDATE -> {
                return stateKnown ? null : "state can not be null";
            }
            default -> {
                if (!stateKnown) {
                    return "state can not be null";
                }
                return epochsGiven ? null : "segmentLeaderEpochs can not be null or empty";
            }
        }
    }
}
