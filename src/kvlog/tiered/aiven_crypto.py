"""Aiven's tiered-storage plugin: the key ring, the data-key envelope and AES-GCM chunks.

Sources (GitHub Aiven-Open/tiered-storage-for-apache-kafka at 8fb1581), under
``core/src/main/java/io/aiven/kafka/tieredstorage/``:

- ``security/RsaEncryptionProvider.java``: a segment's data key is wrapped with the active key pair's
  RSA public key, transformation ``RSA/NONE/OAEPWithSHA3-512AndMGF1Padding`` of Bouncy Castle, whose
  OAEP parameters are SHA3-512 for both the label hash and MGF1 (empty label);
- ``security/RsaKeyReader.java``: key files are PEM, the private key PKCS#8;
- ``security/AesEncryptionProvider.java``, ``transform/EncryptionChunkEnumeration.java``,
  ``transform/DecryptionChunkEnumeration.java``, ``manifest/SegmentEncryptionMetadataV1.java``: the
  data key is AES-256, every chunk is ``AES/GCM/NoPadding`` with a fresh 12-byte IV written before the
  ciphertext, a 16-byte tag after it, and the manifest's ``aad`` (32 random bytes) as associated data;
- ``config/RemoteStorageManagerConfig.java``: ``encryption.key.pair.id``, ``encryption.key.pairs``,
  ``encryption.key.pairs.<id>.public.key.file``, ``encryption.key.pairs.<id>.private.key.file``.

The ``cryptography`` package (``pip install kvlog[aiven]``) is imported only when a key ring is given or a
segment is encrypted. Its RSA-OAEP does not take SHA3 hashes, so the unwrap is RSA's private-key
operation on the integers followed by OAEP decoding (RFC 8017 §7.1.2), written here; it runs once per
segment. Python's big integers do not run in constant time: this reader opens objects at rest and
answers no one, so it is no padding oracle, but keep private keys off shared machines all the same.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from typing import Any

from kvlog.errors import ConfigError, CorruptRemoteObjectError, RemoteDecryptionError

__all__ = ["IV_SIZE", "TAG_SIZE", "KeyRing", "ChunkCipher", "require_cryptography"]

IV_SIZE = 12
TAG_SIZE = 16
_HASH = "sha3_512"


def require_cryptography(why: str) -> Any:
    """The ``cryptography`` package, or a ConfigError that says how to install it."""
    try:
        import cryptography.hazmat.primitives.ciphers.aead as aead
    except ImportError:
        raise ConfigError(f"{why} needs the 'cryptography' package: pip install kvlog[aiven]") from None
    return aead


def _load_private_key(key_id: str, key: Any) -> Any:
    require_cryptography(f"key pair {key_id!r}")
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    if isinstance(key, rsa.RSAPrivateKey):
        return key
    if isinstance(key, str) and key.lstrip().startswith("-----BEGIN"):
        key = key.encode("ascii", "replace")
    if isinstance(key, (str, os.PathLike)):
        try:
            with open(key, "rb") as f:
                key = f.read()
        except OSError as exc:
            raise ConfigError(f"the private key file of key pair {key_id!r} cannot be read: "
                              f"{exc.strerror or type(exc).__name__}") from None
    if not isinstance(key, (bytes, bytearray, memoryview)):
        raise ConfigError(f"key pair {key_id!r}: give the private key as PEM bytes, a file path or a "
                          f"cryptography RSA private key, not {type(key).__name__}")
    data = bytes(key)
    try:
        if data.lstrip().startswith(b"-----BEGIN"):
            loaded = serialization.load_pem_private_key(data, password=None)
        else:
            loaded = serialization.load_der_private_key(data, password=None)
    except (ValueError, TypeError):
        # the library's message is not repeated: nothing of the key's bytes goes into kvlog's errors
        raise ConfigError(f"key pair {key_id!r}: not an unencrypted PEM or DER private key") from None
    except Exception as exc:  # cryptography's UnsupportedAlgorithm
        raise ConfigError(f"key pair {key_id!r}: unsupported private key ({type(exc).__name__})") from None
    if not isinstance(loaded, rsa.RSAPrivateKey):
        raise ConfigError(f"key pair {key_id!r}: the plugin's key pairs are RSA; this key is "
                          f"{type(loaded).__name__}")
    return loaded


def _mgf1(seed: bytes, length: int) -> bytes:
    out = bytearray()
    counter = 0
    while len(out) < length:
        out += hashlib.new(_HASH, seed + counter.to_bytes(4, "big")).digest()
        counter += 1
    return bytes(out[:length])


class KeyRing:
    """RSA private keys by key-pair id. Neither ``repr`` nor any message shows a key, only the ids."""

    def __init__(self, key_pairs: dict[str, Any] | None) -> None:
        self._keys: dict[str, Any] = {}
        for key_id, key in (key_pairs or {}).items():
            if not isinstance(key_id, str) or not key_id.strip() or ":" in key_id:
                raise ConfigError(f"key pair id {key_id!r}: a non-empty name without ':'")
            self._keys[key_id] = _load_private_key(key_id, key)

    @property
    def ids(self) -> list[str]:
        return sorted(self._keys)

    def __repr__(self) -> str:
        return f"KeyRing({self.ids})"

    def __bool__(self) -> bool:
        return bool(self._keys)

    def unwrap(self, key_id: str, wrapped: bytes, manifest: str) -> bytes:
        """The AES data key wrapped for ``key_id`` (RSA-OAEP, SHA3-512, MGF1 SHA3-512, empty label)."""
        private = self._keys.get(key_id)
        if private is None:
            known = f"the key pairs given are {self.ids}" if self._keys else "no key_pairs were given"
            raise RemoteDecryptionError(
                f"manifest {manifest}: the segment's data key is wrapped for key pair {key_id!r}, and {known}: "
                f"pass key_pairs={{{key_id!r}: <its private key>}} (encryption.key.pairs.{key_id}."
                "private.key.file in the plugin's configuration)", path=manifest)
        numbers = private.private_numbers()
        n = numbers.public_numbers.n
        k = (n.bit_length() + 7) // 8
        h_len = hashlib.new(_HASH).digest_size
        refused = RemoteDecryptionError(
            f"manifest {manifest}: the private key of key pair {key_id!r} does not unwrap the segment's data key "
            "(a different key under the same id, or a damaged manifest)", path=manifest)
        if len(wrapped) != k or k < 2 * h_len + 2:
            raise refused
        c = int.from_bytes(wrapped, "big")
        if c >= n:
            raise refused
        # RSADP with the Chinese remainder theorem
        m1 = pow(c % numbers.p, numbers.dmp1, numbers.p)
        m2 = pow(c % numbers.q, numbers.dmq1, numbers.q)
        m = m2 + numbers.q * ((numbers.iqmp * (m1 - m2)) % numbers.p)
        em = m.to_bytes(k, "big")
        masked_seed, masked_db = em[1:1 + h_len], em[1 + h_len:]
        seed = bytes(a ^ b for a, b in zip(masked_seed, _mgf1(masked_db, h_len)))
        db = bytes(a ^ b for a, b in zip(masked_db, _mgf1(seed, k - h_len - 1)))
        label_ok = hmac.compare_digest(db[:h_len], hashlib.new(_HASH, b"").digest())
        rest = db[h_len:].lstrip(b"\x00")
        if em[0] != 0 or not label_ok or not rest.startswith(b"\x01"):
            raise refused
        key = rest[1:]
        if len(key) not in (16, 24, 32):
            raise RemoteDecryptionError(f"manifest {manifest}: the unwrapped data key is {len(key)} bytes, not an "
                                        "AES key", path=manifest)
        return key


class ChunkCipher:
    """AES-GCM of one segment: ``decrypt`` takes ``IV || ciphertext || tag`` and returns the plaintext."""

    def __init__(self, data_key: bytes, aad: bytes) -> None:
        aead = require_cryptography("an encrypted segment")
        self._aes = aead.AESGCM(data_key)
        self._aad = aad

    def __repr__(self) -> str:
        return "ChunkCipher(AES-GCM)"

    def decrypt(self, chunk: bytes | memoryview, what: str, path: str, position: int) -> bytes:
        """``what``: "chunk 3" or "the offset index"; ``position``: its byte in the object ``path``."""
        from cryptography.exceptions import InvalidTag

        if len(chunk) < IV_SIZE + TAG_SIZE:
            raise CorruptRemoteObjectError(
                f"{path}: {what} at byte {position} is {len(chunk)} bytes, shorter than an AES-GCM IV and tag "
                f"({IV_SIZE + TAG_SIZE})", path=path, position=position)
        view = memoryview(chunk)
        try:
            return bytes(self._aes.decrypt(view[:IV_SIZE], view[IV_SIZE:], self._aad))
        except InvalidTag:
            pass
        raise RemoteDecryptionError(
            f"{path}: {what} at byte {position} fails its AES-GCM tag check (damaged bytes, or a data key "
            "that is not this segment's)", path=path, position=position)
