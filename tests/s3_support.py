"""A real S3 endpoint for the tests: moto's server on 127.0.0.1, and a proxy in front of it that can
answer with throttling, 5xx or 403 responses, as an object store under load or misconfigured does."""

from __future__ import annotations

import http.client
import http.server
import logging
import os
import threading
import uuid

import pyarrow.fs as pafs

ACCESS_KEY = "kvlogtest"
SECRET_KEY = "kvlogsecret"
BUCKET = "kvlog-tests"


class S3Server:
    """moto's S3 in this process; ``uri()`` names objects the way a user configures kvlog (credentials
    and endpoint in the URI, which Spark's Python workers receive too)."""

    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self._server.start()
        self.host, self.port = self._server.get_host_and_port()
        self.fs = pafs.S3FileSystem(access_key=ACCESS_KEY, secret_key=SECRET_KEY, region="us-east-1",
                                    endpoint_override=f"{self.host}:{self.port}", scheme="http",
                                    allow_bucket_creation=True)
        self.fs.create_dir(BUCKET)
        self.proxy = FaultProxy(self.host, self.port)

    def stop(self) -> None:
        self.proxy.stop()
        self._server.stop()

    def uri(self, key: str, *, via_proxy: bool = False, access_key: str = ACCESS_KEY,
            secret_key: str = SECRET_KEY) -> str:
        port = self.proxy.port if via_proxy else self.port
        return (f"s3://{access_key}:{secret_key}@{BUCKET}/{key}?endpoint_override=127.0.0.1:{port}"
                "&scheme=http&region=us-east-1")

    @staticmethod
    def canonical(key: str) -> str:
        return f"s3://{BUCKET}/{key}"

    def new_prefix(self) -> str:
        return f"t-{uuid.uuid4().hex[:12]}"

    def upload(self, local_dir: str | os.PathLike[str], key: str) -> None:
        pafs.copy_files(os.fspath(local_dir), f"{BUCKET}/{key}", source_filesystem=pafs.LocalFileSystem(),
                        destination_filesystem=self.fs)

    def put(self, key: str, data: bytes) -> None:
        with self.fs.open_output_stream(f"{BUCKET}/{key}") as f:
            f.write(data)

    def get(self, key: str) -> bytes:
        with self.fs.open_input_stream(f"{BUCKET}/{key}") as f:
            return f.read()

    def delete(self, key: str) -> None:
        self.fs.delete_file(f"{BUCKET}/{key}")


class FaultProxy:
    """Forwards HTTP to the S3 server; ``fail(n, status)`` answers the next ``n`` matching requests
    with ``status`` and an S3 error body instead, ``deny_key`` refuses one access key (403)."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.rules: list[list] = []  # [remaining, status, code, method, substring]
        self.denied_keys: set[str] = set()
        self.seen = 0
        self.lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                fault = proxy._fault(self.command, self.path, self.headers.get("Authorization", ""))
                if fault is not None:
                    status, code = fault
                    payload = (f"<?xml version='1.0' encoding='UTF-8'?><Error><Code>{code}</Code>"
                               f"<Message>injected by the test proxy</Message></Error>").encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(payload) if self.command != "HEAD" else 0))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(payload)
                    return
                conn = http.client.HTTPConnection(*proxy.target, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection",)}
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                # a HEAD answers with the object's length and no body
                length = resp.getheader("Content-Length", "0") if self.command == "HEAD" else str(len(data))
                self.send_header("Content-Length", length)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
                conn.close()

            do_GET = do_PUT = do_HEAD = do_POST = do_DELETE = _handle

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def _fault(self, method: str, path: str, auth: str) -> tuple[int, str] | None:
        with self.lock:
            self.seen += 1
            for key in self.denied_keys:
                if f"Credential={key}/" in auth:
                    return 403, "InvalidAccessKeyId"
            for rule in self.rules:
                remaining, status, code, want_method, substring = rule
                if remaining != 0 and (want_method is None or want_method == method) and substring in path:
                    rule[0] = remaining - 1 if remaining > 0 else remaining
                    return status, code
        return None

    def fail(self, n: int, status: int = 503, code: str = "SlowDown", *, method: str | None = "GET",
             match: str = "") -> None:
        """The next ``n`` matching requests fail (``n = -1``: all of them, until ``clear()``)."""
        with self.lock:
            self.rules.append([n, status, code, method, match])

    def deny_key(self, access_key: str) -> None:
        with self.lock:
            self.denied_keys.add(access_key)

    def clear(self) -> None:
        with self.lock:
            self.rules.clear()
            self.denied_keys.clear()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()



def session_has_s3a(spark) -> bool:
    """Whether ``spark``'s JVM has Hadoop's S3A connector (build/spark-jars/s3a/ on the test session, tests/conftest.py):
    then ``format("kvlog")`` serves ``s3://`` on the JVM, else through the Python source."""
    jvm = spark._jvm
    try:
        jvm.java.lang.Class.forName("org.apache.hadoop.fs.s3a.S3AFileSystem", False,
                                    jvm.java.lang.Thread.currentThread().getContextClassLoader())
    except Exception:  # noqa: BLE001 - py4j reports a missing class as a Py4JJavaError
        return False
    return True
