package io.kvlog.spark.metadata;

import io.kvlog.spark.format.BatchFormatException;
import io.kvlog.spark.format.Bytes;
import java.nio.charset.StandardCharsets;

/**
 * One record value of KRaft's {@code __cluster_metadata} log, decoded only as far as topic configs need: the
 * frame (unsigned varints: frame version 1, api key, version), then the fields of {@code TopicRecord} (2),
 * {@code ConfigRecord} (4) and {@code RemoveTopicRecord} (9), each flexible from version 0 (compact strings, a
 * tagged-field section). Other record types are recognised by api key alone; the transaction markers (23-25,
 * KIP-868) only by it, because they group records. Layouts follow Kafka's
 * {@code metadata/src/main/resources/common/metadata/*.json}, as {@code kvlog.internal_topics} decodes them.
 */
final class KraftMetadataRecord extends FramedRecord {
    private static final String VARINT_PAST_END = "the %s varint runs past the end of the record value";
    private static final String VARINT_TOO_LONG = "the %s varint is longer than 32 bits";
    static final int TOPIC = 2;
    static final int CONFIG = 4;
    static final int REMOVE_TOPIC = 9;
    static final int BEGIN_TRANSACTION = 23;
    static final int END_TRANSACTION = 24;
    static final int ABORT_TRANSACTION = 25;

    final int apiKey;
    /** TopicRecord: name; ConfigRecord: resource name. */
    String name;
    /** TopicRecord, RemoveTopicRecord: the topic id (two longs, as Kafka's Uuid holds it). */
    long idHigh;
    long idLow;
    /** ConfigRecord: resource type (2 topic, 4 broker), config name, value (null: deleted). */
    int resourceType;
    String configName;
    String configValue;

    private KraftMetadataRecord(byte[] buf, int pos, int apiKey) {
        super(buf, pos, VARINT_PAST_END, VARINT_TOO_LONG);
        this.apiKey = apiKey;
    }

    /** Decodes one record value; the problem of a value that does not fit is a BatchFormatException. */
    static KraftMetadataRecord decode(byte[] value) throws BatchFormatException {
        KraftMetadataRecord r = new KraftMetadataRecord(value, 0, -1);
        long[] frame = r.frame("frame version", "api key");
        int apiKey = (int) frame[0];
        long version = frame[1];
        KraftMetadataRecord out = new KraftMetadataRecord(value, r.pos, apiKey);
        String type = switch (apiKey) {
            case TOPIC -> "TopicRecord";
            case CONFIG -> "ConfigRecord";
            case REMOVE_TOPIC -> "RemoveTopicRecord";
            case BEGIN_TRANSACTION -> "BeginTransactionRecord";
            case END_TRANSACTION -> "EndTransactionRecord";
            case ABORT_TRANSACTION -> "AbortTransactionRecord";
            default -> null;
        };
        if (type == null) {
            return out; // a record that cannot change a topic's configs
        }
        if (version != 0) { // the only version of each: a newer one could mean what this does not read
            throw new BatchFormatException("unknown version " + version + " of " + type + " (known: 0)");
        }
        switch (apiKey) {
            case TOPIC -> {
                out.name = out.string(type + " name", false);
                out.uuid();
            }
            case CONFIG -> {
                if (out.pos >= out.end) {
                    throw new BatchFormatException("ConfigRecord ends before its resource type");
                }
                out.resourceType = out.buf[out.pos++];
                out.name = out.string("ConfigRecord resource name", false);
                out.configName = out.string("ConfigRecord name", false);
                out.configValue = out.string("ConfigRecord value", true);
            }
            case REMOVE_TOPIC -> out.uuid();
            default -> {
                return out; // a transaction marker: its optional tagged text is not needed
            }
        }
        out.skipTaggedFields(type);
        out.finish(type);
        return out;
    }

    /** A compact string: unsigned varint length + 1 (0: null), then UTF-8 (decoded as Java's String does). */
    private String string(String what, boolean nullable) throws BatchFormatException {
        long n = uvarint(what + " length") - 1;
        if (n < 0) {
            if (!nullable) {
                throw new BatchFormatException("null " + what + " in a non-nullable field");
            }
            return null;
        }
        if (n > end - pos) {
            throw new BatchFormatException(what + " of " + n + " bytes, " + (end - pos) + " remain");
        }
        String s = new String(buf, pos, (int) n, StandardCharsets.UTF_8);
        pos += (int) n;
        return s;
    }

    private void uuid() throws BatchFormatException {
        if (end - pos < 16) {
            throw new BatchFormatException("topic id of 16 bytes, " + (end - pos) + " remain");
        }
        idHigh = Bytes.int64(buf, pos);
        idLow = Bytes.int64(buf, pos + 8);
        pos += 16;
    }

    /** The tagged-field section: a count, then per field its tag, size and bytes (none of them is needed here). */
    private void skipTaggedFields(String type) throws BatchFormatException {
        long count = uvarint(type + " tagged field count");
        if (count > end - pos) {
            throw new BatchFormatException(count + " tagged fields do not fit in the " + (end - pos)
                + " bytes left of the " + type);
        }
        for (long i = 0; i < count; i++) {
            long tag = uvarint(type + " tag");
            long size = uvarint(type + " tagged field size");
            if (size > end - pos) {
                throw new BatchFormatException("tagged field " + tag + " of " + size + " bytes, " + (end - pos)
                    + " remain in the " + type);
            }
            pos += (int) size;
        }
    }
}
