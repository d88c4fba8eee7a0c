"""Writes a remote segment the way Aiven's tiered-storage plugin uploads it, for the reader's tests.

Written apart from ``kvlog.tiered.aiven*`` (nothing imported from there), from the plugin's sources
(GitHub Aiven-Open/tiered-storage-for-apache-kafka at 8fb1581, under
``core/src/main/java/io/aiven/kafka/tieredstorage/``):

- ``KafkaRemoteStorageManager.java`` (``uploadSegmentLog``, ``uploadIndexes``, ``uploadManifest``): the
  ``.log`` in chunks of ``chunk.size``, each compressed (when enabled) then encrypted (when enabled);
  the indexes in the order offset, time, producer snapshot, leader epoch, transaction (when the segment
  has one), each one chunk, encrypted when enabled and never compressed, an empty index taking no bytes;
- ``transform/CompressionChunkEnumeration.java``: zstd with the content size in the frame header;
- ``transform/EncryptionChunkEnumeration.java``, ``security/AesEncryptionProvider.java``: AES-256-GCM,
  a 12-byte IV written before the ciphertext, the 16-byte tag after it, the segment's AAD;
  ``createDataKeyAndAAD`` makes the data key and the AAD (32 random bytes each);
- ``security/RsaEncryptionProvider.java``: the data key wrapped with RSA-OAEP, SHA3-512 and MGF1
  SHA3-512 (Bouncy Castle's ``OAEPWithSHA3-512AndMGF1Padding``), written ``<key id>:<base64>``;
- ``transform/TransformFinisher.java``: a fixed chunk index unless a transform makes chunk sizes vary
  (compression), then a variable one; ``manifest/index/serde/*``: its sizes packed, zstd'd, base64'd;
- ``manifest/SegmentManifestV1.java``, ``manifest/serde/KafkaTypeSerdeModule.java``: the JSON;
- ``ObjectKeyFactory.java``: the keys; ``metadata/SegmentCustomMetadata*.java``: custom metadata.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from pathlib import Path

import zstandard
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

INDEX_ORDER = [("offset", "offset"), ("timestamp", "timestamp"), ("producer_snapshot", "producerSnapshot"),
               ("leader_epoch", "leaderEpoch"), ("transaction", "transaction")]


def segment_key(segment, key_prefix: str = "") -> str:
    """The objects' common key, without the suffix."""
    name = "%s-%s/%d/%s-%s" % (segment.topic, segment.topic_id, segment.partition,
                               str(segment.start_offset).rjust(20, "0"), segment.segment_id)
    return key_prefix + name


def make_key_pair(directory, key_id: str, bits: int = 2048):
    """An RSA key pair as the plugin's key ring holds it: ``(public key, private key, public PEM path,
    private PEM path)``; the private PEM is PKCS#8."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    public = private.public_key()
    directory = Path(directory)
    pub_path = directory / f"{key_id}-public.pem"
    priv_path = directory / f"{key_id}-private.pem"
    pub_path.write_bytes(public.public_bytes(serialization.Encoding.PEM,
                                             serialization.PublicFormat.SubjectPublicKeyInfo))
    priv_path.write_bytes(private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                serialization.NoEncryption()))
    return public, private, pub_path, priv_path


def _sha3_mask(seed: bytes, n: int) -> bytes:
    blocks = (hashlib.sha3_512(seed + struct.pack(">I", i)).digest() for i in range(-(-n // 64)))
    return b"".join(blocks)[:n]


def wrap_data_key(public_key, data_key: bytes) -> bytes:
    """RSAES-OAEP encryption (RFC 8017 §7.1.1) with SHA3-512 and MGF1(SHA3-512), empty label."""
    numbers = public_key.public_numbers()
    k = (numbers.n.bit_length() + 7) // 8
    h = 64
    padding = bytes(k - len(data_key) - 2 * h - 2)
    block = hashlib.sha3_512(b"").digest() + padding + b"\x01" + data_key
    seed = os.urandom(h)
    masked_block = bytes(x ^ y for x, y in zip(block, _sha3_mask(seed, k - h - 1)))
    masked_seed = bytes(x ^ y for x, y in zip(seed, _sha3_mask(masked_block, h)))
    encoded = int.from_bytes(b"\x00" + masked_seed + masked_block, "big")
    return pow(encoded, numbers.e, numbers.n).to_bytes(k, "big")


def pack_chunk_sizes(sizes: list[int]) -> str:
    """``transformedChunks`` of a variable chunk index."""
    if len(sizes) <= 1:
        raw = struct.pack(">i", len(sizes)) + b"".join(struct.pack(">i", s) for s in sizes)
    else:
        head = sizes[:-1]
        base = min(head)
        width = max(1 if v <= 0xFF else 2 if v <= 0xFFFF else 3 if v <= 0xFFFFFF else 4 for v in (s - base for s in head))
        raw = struct.pack(">iib", len(sizes), base, width)
        raw += b"".join((s - base).to_bytes(4, "big")[4 - width:] for s in head)
        raw += struct.pack(">i", sizes[-1])
    frame = zstandard.ZstdCompressor(write_content_size=True).compress(raw)
    return base64.b64encode(frame).decode()


def _uvarint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def custom_metadata(*, remote_size: int | None = None, object_prefix: str | None = None,
                    object_key: str | None = None) -> bytes:
    """The plugin's custom metadata (one tagged-fields section) with the fields given."""
    fields = []
    if remote_size is not None:
        fields.append((0, _uvarint((remote_size << 1) ^ (remote_size >> 63))))
    for tag, text in ((1, object_prefix), (2, object_key)):
        if text is not None:
            data = text.encode()
            fields.append((tag, _uvarint(len(data) + 1) + data))
    return _uvarint(len(fields)) + b"".join(_uvarint(t) + _uvarint(len(v)) + v for t, v in fields)


def write_aiven_segment(dest_root, segment, log_bytes: bytes, indexes: dict, *, key_prefix: str = "",
                        data_key_prefix: str | None = None, chunk_size: int = 4 << 20, compression: bool = False,
                        encryption=None, aad: bytes | None = None, variable_index: bool | None = None,
                        with_metadata: bool = True) -> dict[str, str]:
    """Write the segment's ``.log``, ``.indexes`` and ``.rsm-manifest`` under ``dest_root``.

    ``indexes``: ``{"offset": bytes, "timestamp": …, "producer_snapshot": …, "leader_epoch": …,
    "transaction": bytes or None}``; ``encryption``: ``(key_id, RSA public key)`` or None;
    ``data_key_prefix``: where the ``.log``/``.indexes`` go when the segment's custom metadata names
    another prefix than ``key_prefix`` (the manifest stays under ``key_prefix``); ``variable_index``
    forces the chunk index kind (by default variable exactly when compressing, as the plugin does).
    Returns ``{suffix: key}``.
    """
    root = Path(dest_root)
    if encryption is not None:
        key_id, public_key = encryption
        data_key = os.urandom(32)
        aad = os.urandom(32) if aad is None else aad
        aes = AESGCM(data_key)

    def encrypt(plain: bytes) -> bytes:
        iv = os.urandom(12)
        return iv + aes.encrypt(iv, plain, aad)

    pieces = [log_bytes[i:i + chunk_size] for i in range(0, len(log_bytes), chunk_size)]
    transformed = []
    for piece in pieces:
        if compression:
            piece = zstandard.ZstdCompressor(write_content_size=True).compress(piece)
        if encryption is not None:
            piece = encrypt(piece)
        transformed.append(piece)
    sizes = [len(t) for t in transformed]
    variable = compression if variable_index is None else variable_index
    if variable:
        chunk_index = {"type": "variable", "originalChunkSize": chunk_size, "originalFileSize": len(log_bytes),
                       "transformedChunks": pack_chunk_sizes(sizes)}
    else:
        overhead = 28 if encryption is not None else 0
        chunk_index = {"type": "fixed", "originalChunkSize": chunk_size, "originalFileSize": len(log_bytes),
                       "transformedChunkSize": chunk_size + overhead,
                       "finalTransformedChunkSize": sizes[-1] if sizes else 0}
        assert all(s == chunk_size + overhead for s in sizes[:-1]), "a fixed index needs equal chunks"

    blob = bytearray()
    placed = {}
    for kind, name in INDEX_ORDER:
        data = indexes.get(kind)
        if data is None:
            if kind != "transaction":
                data = b""
            else:
                placed[name] = None
                continue
        body = encrypt(data) if (encryption is not None and data) else bytes(data)
        placed[name] = {"position": len(blob), "size": len(body)}
        blob += body

    manifest = {"version": "1", "chunkIndex": chunk_index, "segmentIndexes": placed, "compression": compression}
    if encryption is not None:
        manifest["encryption"] = {
            "dataKey": key_id + ":" + base64.b64encode(wrap_data_key(public_key, data_key)).decode(),
            "aad": base64.b64encode(aad).decode()}
    if with_metadata:
        manifest["remoteLogSegmentMetadata"] = {
            "remoteLogSegmentId": {"topicIdPartition": {"topicId": segment.topic_id, "topicPartition": {
                "topic": segment.topic, "partition": segment.partition}}, "id": segment.segment_id},
            "startOffset": segment.start_offset, "endOffset": segment.end_offset,
            "maxTimestampMs": segment.max_timestamp, "brokerId": segment.broker_id,
            "eventTimestampMs": segment.event_timestamp,
            "segmentLeaderEpochs": {str(e): o for e, o in segment.leader_epochs}}

    data_prefix = key_prefix if data_key_prefix is None else data_key_prefix
    keys = {"log": segment_key(segment, data_prefix) + ".log",
            "indexes": segment_key(segment, data_prefix) + ".indexes",
            "rsm-manifest": segment_key(segment, key_prefix) + ".rsm-manifest"}
    contents = {"log": b"".join(transformed), "indexes": bytes(blob),
                "rsm-manifest": json.dumps(manifest, separators=(",", ":")).encode()}
    for suffix, key in keys.items():
        target = root / key
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(contents[suffix])
    return keys
