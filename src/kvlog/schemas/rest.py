"""A schema registry's REST API as a schema source (Confluent's, Karapace, Redpanda's, Apicurio's compatible
API): ``GET /schemas/ids/{id}``, ``/schemas/guids/{guid}``, ``/subjects`` and ``/subjects/{s}/versions/{v}``.

Answers are cached for the source's life (a schema id never changes meaning; ``latest`` is asked once per
subject and source, so a scan sees one reader schema throughout). Basic auth comes from the URL's userinfo
(``https://user:secret@host``) or ``basic_auth=(user, password)``, a bearer token from ``bearer_token=``;
TLS is verified against the system's CAs or ``ca_file=``, with ``cert_file``/``key_file`` for mutual TLS.
No message or exception carries the credentials.
"""

from __future__ import annotations

import base64
import json
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Sequence
from typing import Any

from kvlog.errors import SchemaNotFoundError, SchemaRegistryError
from kvlog.schemas.registry import (
    DEFAULT_CONTEXT,
    RegisteredSchema,
    SchemaReference,
    SchemaSource,
    normalize_type,
)

__all__ = ["RestRegistry"]

_ACCEPT = "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json"
_NOT_FOUND = {40401, 40402, 40403, 40404, 40406, 40400}


class RestRegistry(SchemaSource):
    """Schemas from a registry's REST API at ``url`` (see the module's notes)."""

    def __init__(self, url: str, *, basic_auth: tuple[str, str] | None = None, bearer_token: str | None = None,
                 ca_file: str | None = None, cert_file: str | None = None, key_file: str | None = None,
                 verify: bool = True, timeout: float = 30.0, retries: int = 2,
                 headers: dict[str, str] | None = None) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SchemaRegistryError(f"a schema registry URL is http:// or https://host[:port][/path], not {url!r}")
        user = urllib.parse.unquote(parts.username) if parts.username else None
        password = urllib.parse.unquote(parts.password) if parts.password else ""
        if user is not None and basic_auth is not None:
            raise SchemaRegistryError("basic auth given twice: in the URL and as basic_auth=")
        if basic_auth is None and user is not None:
            basic_auth = (user, password)
        netloc = parts.hostname + (f":{parts.port}" if parts.port else "")
        self.base = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
        self.description = f"the schema registry at {self.base}"
        self._headers = {"Accept": _ACCEPT, "User-Agent": "kvlog"}
        if basic_auth is not None:
            token = base64.b64encode(f"{basic_auth[0]}:{basic_auth[1]}".encode()).decode()
            self._headers["Authorization"] = f"Basic {token}"
        if bearer_token is not None:
            if basic_auth is not None:
                raise SchemaRegistryError("give basic auth or a bearer token, not both")
            self._headers["Authorization"] = f"Bearer {bearer_token}"
        self._headers.update(headers or {})
        self._context: ssl.SSLContext | None = None
        if parts.scheme == "https":
            ctx = ssl.create_default_context(cafile=ca_file)
            if not verify:
                ctx.check_hostname = False
                ctx.verify_mode = ssl.CERT_NONE
            if cert_file is not None:
                ctx.load_cert_chain(cert_file, key_file)
            self._context = ctx
        self.timeout = timeout
        self.retries = retries
        self._lock = threading.Lock()
        self._by_id: dict[tuple[str, int], RegisteredSchema] = {}
        self._by_version: dict[tuple[str, int | str], RegisteredSchema] = {}
        self.requests = 0

    # ------------------------------------------------------------------------------------------ http
    def _get(self, path: str, query: dict[str, str] | None = None) -> Any:
        url = self.base + path + (f"?{urllib.parse.urlencode(query)}" if query else "")
        req = urllib.request.Request(url, headers=self._headers, method="GET")
        for attempt in range(self.retries + 1):
            try:
                self.requests += 1
                with urllib.request.urlopen(req, timeout=self.timeout, context=self._context) as resp:
                    return json.loads(resp.read())
            except urllib.error.HTTPError as exc:
                body = exc.read()
                try:
                    err = json.loads(body)
                    raw_code = err.get("error_code") if isinstance(err, dict) else None
                    code = int(raw_code) if isinstance(raw_code, (int, str)) and str(raw_code).isdigit() else None
                    message = err.get("message") if isinstance(err, dict) else None
                except (ValueError, TypeError):
                    code, message = None, body[:200].decode("utf-8", "replace")
                if exc.code == 404 or code in _NOT_FOUND:
                    raise SchemaNotFoundError(f"{self.description}: {message or 'not found'} (GET {path})") from None
                if exc.code >= 500 and attempt < self.retries:
                    time.sleep(0.2 * (attempt + 1))
                    continue
                raise SchemaRegistryError(f"{self.description} answered GET {path} with HTTP {exc.code}"
                                          f"{f' (error {code})' if code else ''}: {message}", status=exc.code,
                                          error_code=code) from None
            except (urllib.error.URLError, OSError, ValueError) as exc:
                if attempt < self.retries:
                    time.sleep(0.2 * (attempt + 1))
                    continue
                reason = getattr(exc, "reason", exc)
                raise SchemaRegistryError(f"{self.description} cannot be reached (GET {path}): {reason}") from None
        raise AssertionError("unreachable")

    @staticmethod
    def _refs(raw: Any) -> tuple[SchemaReference, ...]:
        return tuple(SchemaReference(str(r["name"]), str(r["subject"]), int(r["version"])) for r in raw or ())

    # --------------------------------------------------------------------------------------- lookups
    def by_id(self, schema_id: int, context: str = DEFAULT_CONTEXT) -> RegisteredSchema:
        key = (context, schema_id)
        with self._lock:
            hit = self._by_id.get(key)
        if hit is not None:
            return hit
        query = {"subject": f":{context}:"} if context != DEFAULT_CONTEXT else None
        body = self._get(f"/schemas/ids/{int(schema_id)}", query)
        out = RegisteredSchema(int(schema_id), normalize_type(body.get("schemaType")), str(body["schema"]),
                               self._refs(body.get("references")), body.get("subject"), body.get("version"),
                               False, context,
                               uuid.UUID(body["guid"]) if isinstance(body.get("guid"), str) else None)
        with self._lock:
            self._by_id[key] = out
        return out

    def by_guid(self, guid: uuid.UUID) -> RegisteredSchema:
        body = self._get(f"/schemas/guids/{guid}")
        ids = body.get("id") if isinstance(body, dict) else None
        return RegisteredSchema(int(ids) if ids is not None else -1, normalize_type(body.get("schemaType")),
                                str(body["schema"]), self._refs(body.get("references")), guid=guid)

    def version(self, subject: str, version: int | str = "latest") -> RegisteredSchema:
        key = (subject, version)
        with self._lock:
            hit = self._by_version.get(key)
        if hit is not None:
            return hit
        body = self._get(f"/subjects/{urllib.parse.quote(subject, safe='')}/versions/{version}")
        out = RegisteredSchema(int(body["id"]), normalize_type(body.get("schemaType")), str(body["schema"]),
                               self._refs(body.get("references")), str(body.get("subject", subject)),
                               int(body["version"]))
        with self._lock:
            self._by_version[key] = out
            self._by_id.setdefault((DEFAULT_CONTEXT, out.id), out)
        return out

    def register(self, subject: str, schema: str, schema_type: str = "AVRO",
                 references: Sequence[SchemaReference] = ()) -> RegisteredSchema:
        """``schema`` registered under ``subject`` (``POST /subjects/{s}/versions``): the registry assigns its id,
        as it does for its own clients; then its version is read back."""
        body: dict[str, Any] = {"schema": schema}
        stype = normalize_type(schema_type)
        if stype != "AVRO":
            body["schemaType"] = stype
        if references:
            body["references"] = [{"name": r.name, "subject": r.subject, "version": r.version} for r in references]
        path = f"/subjects/{urllib.parse.quote(subject, safe='')}/versions"
        answer = self._post(path, body)
        sid = int(answer["id"])
        found = self._post(f"/subjects/{urllib.parse.quote(subject, safe='')}", body)  # (the lookup: its version)
        out = RegisteredSchema(sid, stype, str(found.get("schema", schema)), tuple(references), subject,
                               int(found["version"]) if "version" in found else None)
        with self._lock:
            self._by_id[(DEFAULT_CONTEXT, sid)] = out
            self._by_version.pop((subject, "latest"), None)
        return out

    def _post(self, path: str, body: Any) -> Any:
        url = self.base + path
        headers = dict(self._headers, **{"Content-Type": "application/vnd.schemaregistry.v1+json"})
        req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            self.requests += 1
            with urllib.request.urlopen(req, timeout=self.timeout, context=self._context) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                err = json.loads(raw)
            except ValueError:
                err = {}
            code = err.get("error_code") if isinstance(err, dict) else None
            raise SchemaRegistryError(f"{self.description} answered POST {path} with HTTP {exc.code}"
                                      f"{f' (error {code})' if code else ''}: {err.get('message', '')}",
                                      status=exc.code, error_code=code if isinstance(code, int) else None) from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise SchemaRegistryError(f"{self.description} cannot be reached (POST {path}): "
                                      f"{getattr(exc, 'reason', exc)}") from None

    def subjects(self) -> list[str]:
        body = self._get("/subjects")
        return sorted(str(s) for s in body)
