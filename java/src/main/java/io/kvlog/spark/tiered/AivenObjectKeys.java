package io.kvlog.spark.tiered;

import io.kvlog.spark.metadata.RemoteLogMetadataReplay;
import java.nio.charset.StandardCharsets;

/**
 * The object keys of a remote segment under the Aiven plugin (its {@code ObjectKeyFactory}):
 * {@code <key.prefix><topic>-<topic id>/<partition>/<start offset, 20 digits>-<segment id>.<suffix>}, suffixes
 * {@code log}, {@code indexes} and {@code rsm-manifest}; the prefix is prepended as is. The {@code .log} and
 * {@code .indexes} keys honour the segment's custom metadata (one Kafka tagged-fields section: tag 1
 * {@code object_prefix}, tag 2 {@code object_key}, compact strings) when the broker stored it; the manifest's
 * key is always built from the configured prefix. As {@code kvlog.tiered.aiven_manifest.object_keys}.
 */
final class AivenObjectKeys {
    private static final int OBJECT_PREFIX = 1;
    private static final int OBJECT_KEY = 2;

    final String log;
    final String indexes;
    final String manifest;

    private AivenObjectKeys(String log, String indexes, String manifest) {
        this.log = log;
        this.indexes = indexes;
        this.manifest = manifest;
    }

    static String mainPath(RemoteLogMetadataReplay.Segment s) {
        return s.tp.topic() + "-" + s.tp.topicId() + "/" + s.tp.partition() + "/" + String.format("%020d", s.start)
            + "-" + s.id;
    }

    static AivenObjectKeys of(RemoteLogMetadataReplay.Segment s, String keyPrefix) {
        String main = mainPath(s);
        String dataPrefix = keyPrefix;
        String dataMain = main;
        if (s.custom != null && s.custom.length > 0) {
            String[] fields = customFields(s.custom, TieredLineage.describe(s));
            if (fields[OBJECT_PREFIX] != null) {
                dataPrefix = fields[OBJECT_PREFIX];
            }
            if (fields[OBJECT_KEY] != null) {
                dataMain = fields[OBJECT_KEY];
            }
        }
        return new AivenObjectKeys(dataPrefix + dataMain + ".log", dataPrefix + dataMain + ".indexes",
            keyPrefix + main + ".rsm-manifest");
    }

    /** Tags 1 and 2 of the plugin's custom metadata (index = tag; null: absent or a null string). */
    static String[] customFields(byte[] raw, String where) {
        String[] out = new String[3];
        try {
            int[] pos = {0};
            long count = uvarint(raw, pos, "field count");
            for (long i = 0; i < count; i++) {
                long tag = uvarint(raw, pos, "tag");
                long size = uvarint(raw, pos, "size of tag " + tag);
                if (size > raw.length - pos[0]) {
                    throw new IllegalArgumentException("tag " + tag + " needs " + size + " bytes, "
                        + (raw.length - pos[0]) + " remain");
                }
                int bodyStart = pos[0];
                int bodyEnd = bodyStart + (int) size;
                if (tag == OBJECT_PREFIX || tag == OBJECT_KEY) {
                    byte[] body = java.util.Arrays.copyOfRange(raw, bodyStart, bodyEnd);
                    int[] at = {0};
                    long n = uvarint(body, at, "length of tag " + tag);
                    if (n > 0) {
                        if (n - 1 > body.length - at[0]) {
                            throw new IllegalArgumentException("tag " + tag + ": string of " + (n - 1) + " bytes, "
                                + (body.length - at[0]) + " remain");
                        }
                        out[(int) tag] = new String(body, at[0], (int) (n - 1), StandardCharsets.UTF_8);
                    }
                }
                pos[0] = bodyEnd;
            }
            return out;
        } catch (IllegalArgumentException e) {
            throw new RemoteSegmentException("the custom metadata of " + where + " is not the Aiven plugin's "
                + "(tagged fields object_prefix/object_key): " + e.getMessage());
        }
    }

    private static long uvarint(byte[] b, int[] pos, String what) {
        long value = 0;
        for (int i = 0; i < 10; i++) {
            if (pos[0] >= b.length) {
                throw new IllegalArgumentException(what + ": varint runs past the end");
            }
            int x = b[pos[0]++] & 0xFF;
            value |= (long) (x & 0x7F) << (7 * i);
            if ((x & 0x80) == 0) {
                return value;
            }
        }
        throw new IllegalArgumentException(what + ": varint longer than 10 bytes");
    }
}
