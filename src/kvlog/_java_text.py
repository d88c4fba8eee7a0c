"""Bytes to text exactly as Java 17's ``new String(bytes, StandardCharsets.UTF_8)`` makes it.

Kafka turns record keys and payloads (``DumpLogSegments``) and header keys (``Utils.utf8``, when it reads a
record) into text that way, replacing malformed UTF-8 with U+FFFD. Valid UTF-8 reads the same in Java and
Python (both refuse overlong forms, encoded surrogates and code points past U+10FFFF); what differs is how
many U+FFFD a malformed stretch becomes.

Java's decoder (``String.decodeUTF8_UTF16`` in JDK 17) only ever swallows continuation bytes (0x80-0xBF)
after the byte that starts a sequence, as Python's decoder does, so every other byte begins a sequence in
both. Sequence by sequence, Java's count of U+FFFD is Python's ``errors="replace"`` count (one per maximal
valid prefix, "unexpected end of data" included) with one exception: a lead byte 0xED followed by
0xA0-0xBF, the start of an encoded UTF-16 surrogate (U+D800-U+DFFF), which Python rejects at the second
byte. Java checks for a surrogate only after reading three bytes, so

* ``ED A0-BF 80-BF`` is one U+FFFD in Java (three in Python);
* ``ED A0-BF`` followed by anything else, or by the end of the input, is one U+FFFD (two in Python).

So :func:`java_utf8` decodes with Python's UTF-8 decoder, at full speed while the bytes are valid (the
text that nearly all records hold). At the first malformed byte the decoder calls the error handler
:data:`JAVA_UTF8_ERRORS`, once: it folds each surrogate prefix of the rest into one byte 0xFF (an invalid
lead byte that Python replaces by exactly one U+FFFD and that, like 0xED, starts a sequence) and decodes
the rest with ``errors="replace"``; the valid prefix is not decoded again, and all of it runs in C.
``bytes.decode("utf-8", JAVA_UTF8_ERRORS)`` is the same function, for hot loops.
``tests/test_java_text.py`` holds this to a live JVM.
"""

from __future__ import annotations

import codecs
import re

__all__ = ["JAVA_UTF8_ERRORS", "java_utf8"]

#: the ``errors`` name of Java's replacement, for ``bytes.decode("utf-8", ...)`` of a whole input (UTF-8 only;
#: not for incremental decoders: the handler decodes everything after the first error to the end of the input)
JAVA_UTF8_ERRORS = "kvlog-java-utf8"

#: the start of a UTF-8-encoded surrogate, with its third byte when there is one: Java's single U+FFFD
_SURROGATE = re.compile(rb"\xed[\xa0-\xbf][\x80-\xbf]?")


def _java_rest(exc: UnicodeError) -> tuple[str, int]:
    """The error handler: everything from the first malformed byte to the end, as Java decodes it."""
    if not isinstance(exc, UnicodeDecodeError) or exc.encoding.replace("_", "-").lower() not in ("utf-8", "utf8"):
        raise exc
    data = exc.object
    rest = _SURROGATE.sub(b"\xff", data[exc.start:])
    return rest.decode("utf-8", "replace"), len(data)


codecs.register_error(JAVA_UTF8_ERRORS, _java_rest)


def java_utf8(data: bytes | bytearray | memoryview) -> str:
    """``new String(data, StandardCharsets.UTF_8)`` of Java 17: ``data`` as UTF-8, each malformed sequence
    replaced by U+FFFD where Java replaces it (see the module docstring)."""
    return str(data, "utf-8", JAVA_UTF8_ERRORS)
