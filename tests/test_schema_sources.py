"""Schema sources besides `_schemas`: a registry's REST API (served here by a small HTTP server speaking the
registry's API, with basic auth, bearer tokens, TLS and failures), a folder of schema files, and how a scan
chooses a source from what `schemas=` names."""

from __future__ import annotations

import base64
import datetime
import http.server
import json
import ssl
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import kvlog
from kvlog.errors import SchemaNotFoundError, SchemaRegistryError
from kvlog.schemas.files import SchemaFiles, looks_like_schema_folder
from kvlog.schemas.formats import schema_source
from kvlog.schemas.registry import SchemaMapping
from kvlog.schemas.rest import RestRegistry
from kvlog.schemas.schemas_topic import SchemasTopic

AVRO1 = '{"type":"record","name":"U","fields":[{"name":"a","type":"string"}]}'
AVRO2 = '{"type":"record","name":"U","fields":[{"name":"a","type":"string"},{"name":"b","type":"int","default":0}]}'
PROTO = 'syntax = "proto3";\npackage p;\nimport "money.proto";\nmessage O { p.Money total = 1; }\n'
MONEY = 'syntax = "proto3";\npackage p;\nmessage Money { int64 units = 1; }\n'


class _Registry(http.server.BaseHTTPRequestHandler):
    """The subset of a Confluent registry's REST API kvlog asks for, with the registry's error bodies."""

    schemas = {1: {"schema": AVRO1}, 2: {"schema": AVRO2},
               3: {"schema": MONEY, "schemaType": "PROTOBUF"},
               4: {"schema": PROTO, "schemaType": "PROTOBUF",
                   "references": [{"name": "money.proto", "subject": "money.proto", "version": 1}]}}
    subjects = {"u-value": [1, 2], "money.proto": [3], "o-value": [4]}
    auth: str | None = None
    fail_next = 0
    seen: list[str] = []

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _send(self, status: int, body: object) -> None:
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        cls = type(self)
        cls.seen.append(self.path)
        if cls.auth is not None and self.headers.get("Authorization") != cls.auth:
            return self._send(401, {"error_code": 40101, "message": "Unauthorized"})
        if cls.fail_next:
            cls.fail_next -= 1
            return self._send(503, {"error_code": 50003, "message": "forwarding failed"})
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts[:2] == ["schemas", "ids"] and len(parts) == 3:
            sid = int(parts[2])
            if sid not in cls.schemas:
                return self._send(404, {"error_code": 40403, "message": "Schema not found"})
            return self._send(200, cls.schemas[sid])
        if parts[:2] == ["schemas", "guids"] and len(parts) == 3:
            for sid, s in cls.schemas.items():
                guid = kvlog.schemas.registry.RegisteredSchema(sid, "AVRO", s["schema"]).derived_guid()
                if str(guid) == parts[2]:
                    return self._send(200, s)
            return self._send(404, {"error_code": 40403, "message": "Schema not found"})
        if parts == ["subjects"]:
            return self._send(200, sorted(cls.subjects))
        if parts[0] == "subjects" and len(parts) == 4 and parts[2] == "versions":
            from urllib.parse import unquote

            subject = unquote(parts[1])
            ids = cls.subjects.get(subject)
            if ids is None:
                return self._send(404, {"error_code": 40401, "message": f"Subject '{subject}' not found."})
            v = len(ids) if parts[3] == "latest" else int(parts[3])
            if not 1 <= v <= len(ids):
                return self._send(404, {"error_code": 40402, "message": "Version not found."})
            return self._send(200, {"subject": subject, "version": v, "id": ids[v - 1], **cls.schemas[ids[v - 1]]})
        return self._send(404, {"error_code": 404, "message": "HTTP 404 Not Found"})


def _serve(handler: type, context: ssl.SSLContext | None = None) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    scheme = "https" if context is not None else "http"
    return server, f"{scheme}://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def registry() -> Iterator[tuple[type[_Registry], str]]:
    handler = type("Registry", (_Registry,), {"auth": None, "fail_next": 0, "seen": []})
    server, url = _serve(handler)
    yield handler, url
    server.shutdown()
    server.server_close()


def test_rest_ids_versions_and_cache(registry):
    handler, url = registry
    r = RestRegistry(url)
    assert r.by_id(1).schema == AVRO1 and r.by_id(1).schema_type == "AVRO"
    assert r.version("u-value").id == 2 and r.version("u-value").version == 2
    assert r.version("u-value", 1).id == 1
    assert r.subjects() == ["money.proto", "o-value", "u-value"]
    asked = len(handler.seen)
    r.by_id(1), r.version("u-value")
    assert len(handler.seen) == asked  # cached: an id never changes meaning, latest is asked once
    with pytest.raises(SchemaNotFoundError, match="Schema not found"):
        r.by_id(99)
    with pytest.raises(SchemaNotFoundError, match="not found"):
        r.version("nope-value")


def test_rest_references_and_guids(registry):
    _, url = registry
    r = RestRegistry(url)
    refs = r.references(r.by_id(4))
    assert [(ref.name, target.id) for ref, target in refs] == [("money.proto", 3)]
    guid = r.by_id(2).derived_guid()
    assert r.by_guid(guid).schema == AVRO2
    with pytest.raises(SchemaNotFoundError):
        r.by_guid(uuid.uuid4())


def test_rest_basic_auth_from_url_or_argument_and_bearer(registry):
    handler, url = registry
    handler.auth = "Basic " + base64.b64encode(b"alice:s3cr@t/x").decode()
    host = url.split("://")[1]
    assert RestRegistry(f"http://alice:s3cr%40t%2Fx@{host}").by_id(1).id == 1
    assert RestRegistry(url, basic_auth=("alice", "s3cr@t/x")).by_id(1).id == 1
    with pytest.raises(SchemaRegistryError, match="HTTP 401") as e:
        RestRegistry(f"http://alice:wrong@{host}").by_id(1)
    assert "wrong" not in str(e.value) and e.value.status == 401 and e.value.error_code == 40101
    handler.auth = "Bearer tok"
    assert RestRegistry(url, bearer_token="tok").by_id(1).id == 1
    with pytest.raises(SchemaRegistryError, match="not both"):
        RestRegistry(url, basic_auth=("a", "b"), bearer_token="tok")
    with pytest.raises(SchemaRegistryError, match="twice"):
        RestRegistry(f"http://a:b@{host}", basic_auth=("a", "b"))


def test_rest_retries_server_errors_then_reports(registry):
    handler, url = registry
    handler.fail_next = 1
    assert RestRegistry(url, retries=2).by_id(1).id == 1  # one 503, then an answer
    handler.fail_next = 5
    with pytest.raises(SchemaRegistryError, match="HTTP 503") as e:
        RestRegistry(url, retries=1).by_id(2)
    assert e.value.error_code == 50003


def test_rest_unreachable_and_bad_urls():
    with pytest.raises(SchemaRegistryError, match="cannot be reached"):
        RestRegistry("http://127.0.0.1:9", retries=0, timeout=2).by_id(1)
    for bad in ("ftp://x", "http://", "registry:8081"):
        with pytest.raises(SchemaRegistryError, match="http:// or https://"):
            RestRegistry(bad)


def _self_signed(tmp_path: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    import ipaddress

    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def test_rest_over_tls_verified_against_a_ca_file(tmp_path):
    cert, key = _self_signed(tmp_path)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    handler = type("Registry", (_Registry,), {"auth": None, "fail_next": 0, "seen": []})
    server, url = _serve(handler, ctx)
    try:
        assert RestRegistry(url, ca_file=str(cert)).by_id(1).schema == AVRO1
        with pytest.raises(SchemaRegistryError, match="cannot be reached"):
            RestRegistry(url, retries=0).by_id(1)  # the system's CAs do not know it
        assert RestRegistry(url, verify=False).by_id(2).schema == AVRO2
    finally:
        server.shutdown()
        server.server_close()


def test_a_typed_scan_reads_its_schemas_from_a_registry_url(registry, tmp_path):
    _, url = registry
    mgr = kvlog.LogManager(tmp_path)
    mgr.create_topic("u", 1)
    payload = b"\x00\x00\x00\x00\x01" + b"\x04hi"  # schema 1: {"a": "hi"}
    mgr.log("u", 0).append([kvlog.Record(None, payload, 0)])
    mgr.close()
    t = kvlog.scan(str(tmp_path), "u", value_format="registry", schemas=url, columns=["value", "valueSchemaId"]).read_all()
    assert t.to_pylist() == [{"value": {"a": "hi", "b": 0}, "valueSchemaId": 1}]  # read as the latest (v2)


# ------------------------------------------------------------------------------------------- files
def test_schema_files_ids_subjects_and_imports(tmp_path):
    (tmp_path / "1.avsc").write_text(AVRO1)
    (tmp_path / "2.avsc").write_text(AVRO2)
    (tmp_path / "3.proto").write_text(PROTO)
    (tmp_path / "money.proto").write_text(MONEY)
    (tmp_path / "u-value").mkdir()
    (tmp_path / "u-value" / "1.avsc").write_text(AVRO1)
    (tmp_path / "u-value" / "2.avsc").write_text(AVRO2)
    assert looks_like_schema_folder(tmp_path)
    f = SchemaFiles(tmp_path)
    assert f.by_id(2).schema == AVRO2 and f.by_id(3).schema_type == "PROTOBUF"
    assert f.version("u-value").version == 2 and f.version("u-value").id == 2  # the id of the file with its text
    assert f.subjects() == ["u-value"]
    assert [(r.name, t.schema) for r, t in f.references(f.by_id(3))] == [("money.proto", MONEY)]
    with pytest.raises(SchemaNotFoundError, match="no file 9"):
        f.by_id(9)
    with pytest.raises(SchemaNotFoundError):
        f.version("../etc")  # (a path outside the folder is not read)


def test_schema_source_from_what_schemas_names(tmp_path, registry):
    _, url = registry
    assert isinstance(schema_source(url), RestRegistry)
    assert isinstance(schema_source({1: AVRO1}), SchemaMapping)
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "1.avsc").write_text(AVRO1)
    assert isinstance(schema_source(str(tmp_path / "files")), SchemaFiles)
    mgr = kvlog.LogManager(tmp_path / "data")
    mgr.create_topic("_schemas", 1)
    mgr.close()
    assert isinstance(schema_source(str(tmp_path / "data")), SchemasTopic)
    with pytest.raises(kvlog.ConfigError, match="no schema source"):
        schema_source(None)
