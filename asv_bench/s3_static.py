#!/usr/bin/env python
"""A read-only S3 endpoint over a local directory, for benchmarks: what a fast object store looks like
to a client, where moto (the tests' server) is itself the bottleneck.

    python asv_bench/s3_static.py ROOT PORT       # bucket "b" serves ROOT/b

It answers the S3 REST calls ``pyarrow.fs.S3FileSystem`` makes to read: HEAD and ranged GET of an
object (the body sent with ``sendfile``, no copy through Python), ListObjectsV2 with a prefix and a
delimiter, and HEAD of a bucket. It checks no signature and serves nothing else; it is a benchmark
instrument, not a store.
"""

from __future__ import annotations

import email.utils
import http.server
import os
import socket
import sys
import urllib.parse
from xml.sax.saxutils import escape


def _http_date(ts: float) -> str:
    return email.utils.formatdate(ts, usegmt=True)


def _iso(ts: float) -> str:
    import datetime

    return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def make_handler(root: str) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def setup(self) -> None:
            super().setup()
            # headers and body leave in separate writes: without this, Nagle's algorithm holds a small
            # body until the client's delayed ACK (40 ms per request)
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def _split(self) -> tuple[str, str, dict[str, list[str]]]:
            url = urllib.parse.urlsplit(self.path)
            parts = urllib.parse.unquote(url.path).lstrip("/").split("/", 1)
            return parts[0], parts[1] if len(parts) > 1 else "", urllib.parse.parse_qs(url.query)

        def _empty(self, status: int) -> None:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _xml(self, status: int, body: str) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def _missing(self) -> None:
            self._xml(404, "<?xml version='1.0' encoding='UTF-8'?><Error><Code>NoSuchKey</Code>"
                           "<Message>no such key</Message></Error>")

        def _file(self, bucket: str, key: str) -> str | None:
            path = os.path.join(root, bucket, key)
            return path if key and not key.endswith("/") and os.path.isfile(path) else None

        def do_HEAD(self) -> None:
            bucket, key, _ = self._split()
            if not key:
                return self._empty(200 if os.path.isdir(os.path.join(root, bucket)) else 404)
            path = self._file(bucket, key)
            if path is None:
                return self._missing()
            st = os.stat(path)
            self.send_response(200)
            self.send_header("Content-Length", str(st.st_size))
            self.send_header("Last-Modified", _http_date(st.st_mtime))
            self.send_header("ETag", f'"{st.st_mtime_ns:x}-{st.st_size:x}"')
            self.send_header("Content-Type", "application/octet-stream")
            self.end_headers()

        def do_GET(self) -> None:
            bucket, key, query = self._split()
            if not key and "list-type" in query:
                return self._list(bucket, query)
            path = self._file(bucket, key)
            if path is None:
                return self._missing()
            size = os.path.getsize(path)
            start, stop = 0, size - 1
            rng = self.headers.get("Range")
            if rng and rng.startswith("bytes="):
                a, _, b = rng[6:].partition("-")
                start = int(a) if a else max(0, size - int(b))
                stop = min(int(b), size - 1) if a and b else size - 1
            length = max(0, stop - start + 1)
            self.send_response(206 if rng else 200)
            self.send_header("Content-Length", str(length))
            if rng:
                self.send_header("Content-Range", f"bytes {start}-{stop}/{size}")
            self.send_header("Content-Type", "application/octet-stream")
            self.end_headers()
            self.wfile.flush()
            with open(path, "rb") as f:
                sent = 0
                while sent < length:
                    n = os.sendfile(self.connection.fileno(), f.fileno(), start + sent, length - sent)
                    if n == 0:
                        break
                    sent += n

        def _list(self, bucket: str, query: dict[str, list[str]]) -> None:
            prefix = query.get("prefix", [""])[0]
            delimiter = query.get("delimiter", [""])[0]
            base = os.path.join(root, bucket)
            keys: list[tuple[str, os.stat_result]] = []
            prefixes: set[str] = set()
            start_dir = os.path.join(base, os.path.dirname(prefix))
            walk = os.walk(start_dir) if os.path.isdir(start_dir) else iter(())
            for d, dirs, files in walk:
                for name in sorted(files):
                    full = os.path.join(d, name)
                    key = os.path.relpath(full, base)
                    if not key.startswith(prefix):
                        continue
                    rest = key[len(prefix):]
                    if delimiter and delimiter in rest:
                        prefixes.add(prefix + rest.split(delimiter, 1)[0] + delimiter)
                    else:
                        keys.append((key, os.stat(full)))
            limit = int(query.get("max-keys", ["1000000"])[0])
            keys.sort()
            items = [f"<Contents><Key>{escape(k)}</Key><LastModified>{_iso(st.st_mtime)}</LastModified>"
                     f"<ETag>\"{st.st_mtime_ns:x}\"</ETag><Size>{st.st_size}</Size>"
                     "<StorageClass>STANDARD</StorageClass></Contents>" for k, st in keys[:limit]]
            items += [f"<CommonPrefixes><Prefix>{escape(p)}</Prefix></CommonPrefixes>" for p in sorted(prefixes)]
            self._xml(200, "<?xml version='1.0' encoding='UTF-8'?>"
                           "<ListBucketResult xmlns='http://s3.amazonaws.com/doc/2006-03-01/'>"
                           f"<Name>{escape(bucket)}</Name><Prefix>{escape(prefix)}</Prefix>"
                           f"<KeyCount>{len(items)}</KeyCount><MaxKeys>{limit}</MaxKeys>"
                           f"<IsTruncated>false</IsTruncated>{''.join(items)}</ListBucketResult>")

    return Handler


def main() -> None:
    root, port = sys.argv[1], int(sys.argv[2])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), make_handler(root))
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
