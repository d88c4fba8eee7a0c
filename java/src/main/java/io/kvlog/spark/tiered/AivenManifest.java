package io.kvlog.spark.tiered;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.luben.zstd.Zstd;
import io.kvlog.spark.format.Bytes;
import java.io.IOException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Aiven plugin's segment manifest ({@code .rsm-manifest}, its {@code SegmentManifestV1}), decoded as
 * {@code kvlog.tiered.aiven_manifest.parse_manifest} decodes it: JSON with {@code "version": "1"}, the chunk index
 * ({@code "fixed"}: {@code transformedChunkSize} and {@code finalTransformedChunkSize}; {@code "variable"}:
 * {@code transformedChunks}, base64 of a zstd frame of int32 count, then for more than one chunk int32 base,
 * int8 width and {@code count - 1} values minus base in {@code width} big-endian bytes, then the last value as
 * int32), {@code segmentIndexes} (each {@code {position, size}} in the {@code .indexes} object, transaction null
 * when there is none), {@code compression} and, for an encrypted segment, {@code encryption}
 * ({@code dataKey} = {@code <key pair id>:<base64 of the wrapped AES key>}, {@code aad} base64).
 */
final class AivenManifest {
    /** The manifest's {@code segmentIndexes} field names, in the order the plugin uploads them. */
    static final String[] INDEX_FIELDS = {"offset", "timestamp", "producerSnapshot", "leaderEpoch", "transaction"};
    private static final long MAX_CHUNK_SIZES = 10L << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    final int originalChunkSize;
    final long originalFileSize;
    /** Where chunk i starts in the object, and the object's expected length last (count + 1 values). */
    final long[] offsets;
    /** Index field name -> {position, size}; null for a transaction index the segment does not have. */
    final Map<String, long[]> indexes;
    final boolean compression;
    /** The key pair id the data key is wrapped for; null when the segment is not encrypted. */
    final String keyId;
    final byte[] wrappedKey;
    final byte[] aad;
    private final JsonNode metadata;

    private AivenManifest(int chunk, long total, long[] offsets, Map<String, long[]> indexes, boolean compression,
                          String keyId, byte[] wrappedKey, byte[] aad, JsonNode metadata) {
        this.originalChunkSize = chunk;
        this.originalFileSize = total;
        this.offsets = offsets;
        this.indexes = indexes;
        this.compression = compression;
        this.keyId = keyId;
        this.wrappedKey = wrappedKey;
        this.aad = aad;
        this.metadata = metadata;
    }

    int chunks() {
        return offsets.length - 1;
    }

    /** The original size of chunk {@code i} (every chunk is originalChunkSize but the last). */
    int originalSize(int i) {
        return (int) Math.min(originalChunkSize, originalFileSize - (long) i * originalChunkSize);
    }

    /** The manifest's bytes, decoded; a {@link RemoteSegmentException} naming {@code name} otherwise. */
    static AivenManifest parse(byte[] data, String name) {
        JsonNode doc;
        try {
            doc = JSON.readTree(data);
        } catch (JsonProcessingException e) {
            long at = e.getLocation() == null ? -1 : e.getLocation().getByteOffset();
            throw new RemoteSegmentException(name, at, "manifest " + name + " is not JSON: " + e.getOriginalMessage()
                + (at < 0 ? "" : " at byte " + at));
        } catch (IOException e) {
            throw new RemoteSegmentException(name, -1, "manifest " + name + " is not JSON: " + e.getMessage());
        }
        try {
            if (doc == null || !doc.isObject()) {
                throw new IllegalArgumentException("the document is not a JSON object");
            }
            JsonNode version = doc.get("version");
            if (version == null || !version.isTextual() || !version.asText().equals("1")) {
                throw new IllegalArgumentException("version is " + version + "; kvlog reads version '1' "
                    + "(SegmentManifestV1)");
            }
            JsonNode compression = doc.get("compression");
            if (compression == null || !compression.isBoolean()) {
                throw new IllegalArgumentException("compression is " + compression + ", not true or false");
            }
            JsonNode ci = doc.get("chunkIndex");
            if (ci == null || !ci.isObject()) {
                throw new IllegalArgumentException("chunkIndex is missing or not an object");
            }
            int chunk = int32(ci, "originalChunkSize", "chunkIndex", 1);
            long total = int32(ci, "originalFileSize", "chunkIndex", 0);
            int count = (int) ((total + chunk - 1) / chunk);
            long[] sizes = new long[count];
            String type = ci.path("type").isTextual() ? ci.get("type").asText() : null;
            if ("fixed".equals(type)) {
                long middle = int32(ci, "transformedChunkSize", "chunkIndex", 0);
                long last = int32(ci, "finalTransformedChunkSize", "chunkIndex", 0);
                for (int i = 0; i < count; i++) {
                    sizes[i] = i + 1 < count ? middle : last;
                }
            } else if ("variable".equals(type)) {
                JsonNode text = ci.get("transformedChunks");
                if (text == null || !text.isTextual()) {
                    throw new IllegalArgumentException("chunkIndex.transformedChunks is missing or not a string");
                }
                long[] got = chunkSizes(text.asText());
                if (got.length != count) {
                    throw new IllegalArgumentException("chunkIndex lists " + got.length + " chunks; " + total
                        + " bytes in chunks of " + chunk + " make " + count);
                }
                for (long s : got) {
                    if (s < 0) {
                        throw new IllegalArgumentException("chunkIndex.transformedChunks holds a negative size");
                    }
                }
                sizes = got;
            } else {
                throw new IllegalArgumentException("chunkIndex.type is " + ci.get("type")
                    + ", not 'fixed' or 'variable'");
            }
            long[] offsets = new long[count + 1];
            for (int i = 0; i < count; i++) {
                offsets[i + 1] = offsets[i] + sizes[i];
            }
            JsonNode si = doc.get("segmentIndexes");
            if (si == null || !si.isObject()) {
                throw new IllegalArgumentException("segmentIndexes is missing or not an object");
            }
            Map<String, long[]> indexes = new LinkedHashMap<>();
            for (String f : INDEX_FIELDS) {
                JsonNode e = si.get(f);
                if (e == null || e.isNull()) {
                    if (!f.equals("transaction")) {
                        throw new IllegalArgumentException("segmentIndexes." + f + " is missing");
                    }
                    indexes.put(f, null);
                    continue;
                }
                if (!e.isObject()) {
                    throw new IllegalArgumentException("segmentIndexes." + f + " is not an object");
                }
                indexes.put(f, new long[] {int32(e, "position", "segmentIndexes." + f, 0),
                    int32(e, "size", "segmentIndexes." + f, 0)});
            }
            String keyId = null;
            byte[] wrapped = null;
            byte[] aad = null;
            JsonNode enc = doc.get("encryption");
            if (enc != null && !enc.isNull()) {
                if (!enc.isObject()) {
                    throw new IllegalArgumentException("encryption is not an object");
                }
                JsonNode key = enc.get("dataKey");
                JsonNode a = enc.get("aad");
                String k = key != null && key.isTextual() ? key.asText() : null;
                if (k == null || k.indexOf(':') < 0 || k.indexOf(':') != k.lastIndexOf(':')) {
                    throw new IllegalArgumentException("encryption.dataKey is missing or not '<key pair id>:<base64>'");
                }
                keyId = k.substring(0, k.indexOf(':'));
                String w = k.substring(k.indexOf(':') + 1);
                if (keyId.isBlank() || w.isEmpty()) {
                    throw new IllegalArgumentException("encryption.dataKey has an empty key pair id or key");
                }
                if (a == null || !a.isTextual()) {
                    throw new IllegalArgumentException("encryption.aad is missing or not a string");
                }
                try {
                    wrapped = Base64.getDecoder().decode(w);
                    aad = Base64.getDecoder().decode(a.asText());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("encryption.dataKey or encryption.aad is not base64");
                }
            }
            JsonNode meta = doc.get("remoteLogSegmentMetadata");
            return new AivenManifest(chunk, total, offsets, indexes, compression.asBoolean(), keyId, wrapped, aad,
                meta != null && meta.isObject() ? meta : null);
        } catch (IllegalArgumentException e) {
            throw new RemoteSegmentException(name, -1, "manifest " + name + " is not the Aiven plugin's SegmentManifestV1: "
                + e.getMessage());
        }
    }

    /** The manifest's own description of its segment (when written) and its size agree with {@code seg}. */
    void check(AivenSegment seg, String name) {
        if (seg.size() >= 0 && originalFileSize != seg.size()) {
            throw new RemoteSegmentException(name, -1, "manifest " + name + " describes a .log of " + originalFileSize
                + " bytes; __remote_log_metadata says " + seg.describe() + " has " + seg.size());
        }
        if (metadata == null) {
            return;
        }
        JsonNode id = metadata.path("remoteLogSegmentId").path("id");
        JsonNode start = metadata.get("startOffset");
        if ((id.isTextual() && !id.asText().equals(seg.segmentId()))
                || (start != null && start.isIntegralNumber() && start.asLong() != seg.start())) {
            throw new RemoteSegmentException(name, -1, "manifest " + name + " describes segment " + (id.isTextual()
                ? id.asText() : "?") + " from offset " + (start == null ? "?" : start.asText()) + ", not "
                + seg.describe());
        }
    }

    private static int int32(JsonNode obj, String field, String where, int lo) {
        JsonNode v = obj.get(field);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < lo) {
            throw new IllegalArgumentException(where + "." + field + " is " + v + ", not an int32 >= " + lo);
        }
        return v.asInt();
    }

    /** {@code transformedChunks}: base64, then a zstd frame (content size set), then the plugin's codec. */
    static long[] chunkSizes(String text) {
        byte[] packed;
        try {
            packed = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("transformedChunks is not base64");
        }
        long declared = Zstd.getFrameContentSize(packed);
        if (declared <= 0 || declared > MAX_CHUNK_SIZES) {
            throw new IllegalArgumentException("transformedChunks' zstd frame declares " + declared + " bytes");
        }
        byte[] raw = new byte[(int) declared];
        try {
            long n = Zstd.decompressByteArray(raw, 0, raw.length, packed, 0, packed.length);
            if (n != raw.length) {
                throw new IllegalArgumentException("transformedChunks' zstd frame holds " + n + " bytes, not "
                    + raw.length);
            }
        } catch (RuntimeException e) {
            if (e instanceof IllegalArgumentException iae) {
                throw iae;
            }
            throw new IllegalArgumentException("transformedChunks is not a zstd frame (" + e.getMessage() + ")");
        }
        if (raw.length < 4) {
            throw new IllegalArgumentException("transformedChunks is shorter than its count");
        }
        int count = Bytes.int32(raw, 0);
        if (count < 0) {
            throw new IllegalArgumentException("transformedChunks counts " + count + " chunks");
        }
        if (count == 0) {
            return new long[0];
        }
        if (count == 1) {
            if (raw.length != 8) {
                throw new IllegalArgumentException("transformedChunks of one chunk is " + raw.length
                    + " bytes, not 8");
            }
            return new long[] {Bytes.int32(raw, 4)};
        }
        if (raw.length < 9) {
            throw new IllegalArgumentException("transformedChunks ends inside its header");
        }
        int base = Bytes.int32(raw, 4);
        int width = raw[8] & 0xFF;
        if (width < 1 || width > 4) {
            throw new IllegalArgumentException("transformedChunks packs values in " + width + " bytes");
        }
        long want = 9L + (long) (count - 1) * width + 4;
        if (raw.length != want) {
            throw new IllegalArgumentException("transformedChunks of " + count + " chunks at " + width
                + " bytes each is " + raw.length + " bytes, not " + want);
        }
        long[] out = new long[count];
        int p = 9;
        for (int i = 0; i < count - 1; i++) {
            long v = 0;
            for (int j = 0; j < width; j++) {
                v = (v << 8) | (raw[p++] & 0xFF);
            }
            out[i] = v + base;
        }
        out[count - 1] = Bytes.int32(raw, p);
        return out;
    }
}
