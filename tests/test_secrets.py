"""No credentials or query strings in any message: every storage error path is driven with URIs that carry
secrets (in the userinfo and in the query), and the secrets must not appear in the exception's text, its
repr, its attributes, its causes and contexts, the formatted traceback, warnings, log records or the CLI's
output. Remote cases use moto's S3 server on 127.0.0.1 (tests/s3_support.py)."""

from __future__ import annotations

import logging
import os
import traceback
import warnings
from collections.abc import Callable
from typing import Any

import pyarrow.fs as pafs
import pytest

import kvlog
from kvlog import _io, storage
from kvlog.cli import main as cli_main
from kvlog.errors import KvlogError, ReadOnlyStorageError, redact
from kvlog.records import Record
from s3_support import BUCKET, S3Server

ACCESS = "AKIAEXAMPLE"
SECRET = "SECRETVALUE"
QUERY_SECRET = "QUERYSECRET"
SECRETS = (ACCESS, SECRET, QUERY_SECRET)




def secret_uri(path: str, *, port: int = 1, bucket: str = BUCKET, extra: str = "") -> str:
    return (f"s3://{ACCESS}:{SECRET}@{bucket}/{path}?endpoint_override=127.0.0.1:{port}&scheme=http"
            f"&region=us-east-1{extra}")


def _texts(exc: BaseException) -> list[str]:
    """Everything an exception shows: str, repr, args, attributes, notes, of it and every cause and context,
    and the formatted traceback."""
    out = ["".join(traceback.format_exception(exc))]
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        out += [str(e), repr(e), repr(e.args), repr(getattr(e, "__notes__", None))]
        out += [repr(v) for v in vars(e).values()]
        todo += [e.__cause__, e.__context__]
    return out


def assert_no_secrets(texts: list[str]) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, text


def _sweep(fn: Callable[[], Any], caplog: pytest.LogCaptureFixture, expected: type[BaseException]) -> BaseException:
    """Run ``fn``, which must fail with ``expected``; no secret anywhere it reports."""
    caplog.set_level(logging.DEBUG)
    caplog.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(expected) as info:
            fn()
    assert_no_secrets(_texts(info.value))
    assert_no_secrets([str(w.message) for w in caught])
    assert_no_secrets([r.getMessage() for r in caplog.records])
    return info.value


def _write_log(path: str, n: int = 20) -> None:
    with kvlog.Log.open(path, kvlog.LogConfig(segment_bytes=4096)) as log:
        for i in range(n):
            log.append([Record(b"k%d" % i, os.urandom(64), 1_000_000 + i)])


@pytest.fixture(scope="module")
def uploaded(s3, tmp_path_factory):
    root = tmp_path_factory.mktemp("secrets") / "root"
    _write_log(str(root / "orders-0"))
    key = s3.new_prefix()
    s3.upload(root, key)
    return key


# --------------------------------------------------------------------------- the redaction function
@pytest.mark.parametrize("text,want", [
    (f"on s3://{ACCESS}:{SECRET}@bucket/a/b?endpoint_override=h:1&secret_key={QUERY_SECRET}: refused",
     "on s3://bucket/a/b: refused"),
    (f"URI: 'gs://{ACCESS}:{SECRET}/with/slash@bucket/k#frag'", "URI: 'gs://bucket/k'"),
    (f"(foo://{ACCESS}@host/p?x={QUERY_SECRET})", "(foo://host/p)"),
    ("local /data/kvlog/orders-0/00000000000000000000.log", "local /data/kvlog/orders-0/00000000000000000000.log"),
    ("s3://bucket/key stays", "s3://bucket/key stays"),
])
def test_redact(text, want):
    assert redact(text) == want


def test_canonical_names_never_keep_an_unencoded_secret(caplog):
    uri = f"s3://{ACCESS}:{SECRET}/x+y@bucket/p/?secret_key={QUERY_SECRET}"
    assert storage.canonical(uri) == "s3://bucket/p"  # urlsplit would end the userinfo at the "/"
    _sweep(lambda: storage.normalize(uri), caplog, KvlogError)  # pyarrow cannot parse it either


# --------------------------------------------------------------------------- without a server
def _sink_failures(s3: S3Server, uploaded: str, caplog: pytest.LogCaptureFixture) -> None:
    """The Spark sink writes object stores: its refusals and failures there name the store without secrets."""
    import pyarrow as pa

    from kvlog.spark import _remote, _staging

    uri = secret_uri(f"{uploaded}-sink", port=s3.port)
    canonical, store = _remote.canonical(uri)
    _remote.take_lease(canonical, store, "other", "t", None)
    plan = _staging.plan(uri, {"topic": "t"}, ["value"], False, job="mine")
    staged = _staging.stage_batches(plan, [pa.record_batch({"value": pa.array([b"v"])})], "task-0-0")
    err = _sweep(lambda: _remote.commit(plan, staged), caplog, KvlogError)  # another job's live lease
    assert "kvlog-write-lease.other" in str(err)
    _remote.release_lease(canonical, store, "other")
    s3.proxy.deny_key(ACCESS)  # then a store that refuses our credentials half way through the job
    denied = secret_uri(f"{uploaded}-sink", port=s3.proxy.port)
    plan = _staging.plan(uri, {"topic": "t"}, ["value"], False, job="denied")
    plan.root = denied
    _sweep(lambda: _staging.stage_batches(plan, [pa.record_batch({"value": pa.array([b"v"])})], "task-0-0"),
           caplog, KvlogError)
    _sweep(lambda: _remote.commit(plan, staged), caplog, KvlogError)
    s3.proxy.clear()


OFFLINE: list[tuple[str, Callable[[str], Any], type[BaseException]]] = [
    ("Log.open for writing", lambda u: kvlog.Log.open(u), ReadOnlyStorageError),
    ("LogManager for writing", lambda u: kvlog.LogManager(u), ReadOnlyStorageError),
    ("file system write", lambda u: _io.fs.open(u + "/00000000000000000000.log", os.O_WRONLY | os.O_CREAT),
     ReadOnlyStorageError),
    ("a bucket-less URI", lambda u: kvlog.Log.open(f"s3://{ACCESS}:{SECRET}@/p-0?secret_key={QUERY_SECRET}",
                                                   read_only=True), KvlogError),
    ("an unknown query parameter", lambda u: kvlog.Log.open(u + f"&secret_key={QUERY_SECRET}", read_only=True),
     KvlogError),
    ("an unknown scheme", lambda u: kvlog.Log.open(f"nosuch://{ACCESS}:{SECRET}@host/p-0?k={QUERY_SECRET}",
                                                   read_only=True), KvlogError),
    ("a file:// URI naming another host", lambda u: kvlog.Log.open(f"file://{ACCESS}:{SECRET}@elsewhere/p-0"),
     KvlogError),
    ("register_filesystem with a bad prefix",
     lambda u: storage.register_filesystem(f"{ACCESS}:{SECRET}@bucket?k={QUERY_SECRET}", None), KvlogError),
]


def test_refusals_and_bad_uris_name_no_secret(caplog):
    for what, fn, expected in OFFLINE:
        try:
            _sweep(lambda fn=fn: fn(secret_uri("w/t-0")), caplog, expected)
        except AssertionError as exc:
            raise AssertionError(f"{what}: {exc}") from None


def _bad_endpoint(caplog: pytest.LogCaptureFixture) -> None:
    uri = secret_uri("down/p-0", port=1)
    store = storage.store_for(uri)
    # the same store, without the SDK's own retries and backoff, so that the failure comes at once
    store.fs = pafs.S3FileSystem(access_key=ACCESS, secret_key=SECRET, region="us-east-1", scheme="http",
                                 endpoint_override="127.0.0.1:1",
                                 retry_strategy=pafs.AwsStandardS3RetryStrategy(max_attempts=1))
    store.backoff_s = 0.001
    err = _sweep(lambda: kvlog.Log.open(uri, read_only=True), caplog, KvlogError)
    assert "s3://kvlog-tests/down" in str(err)


# --------------------------------------------------------------------------- against moto's S3
def _reads_work(s3: S3Server, uploaded: str) -> None:
    """The URIs of these tests do read (moto takes any credentials): the failures below are the paths'."""
    with kvlog.Log.open(secret_uri(f"{uploaded}/orders-0", port=s3.port), read_only=True) as log:
        assert log.to_arrow().num_rows == 20
        assert_no_secrets([log.dir, repr(log.dir)])


def test_every_remote_error_path_names_no_secret(s3, uploaded, tmp_path, caplog):
    _reads_work(s3, uploaded)
    _missing_objects(s3, uploaded, caplog)
    _mirror_from_a_missing_backup(s3, uploaded, tmp_path, caplog)
    _bad_endpoint(caplog)
    _server_errors_after_retries(s3, uploaded, caplog)
    _refused_credentials(s3, uploaded, caplog)
    _sink_failures(s3, uploaded, caplog)


def _missing_objects(s3: S3Server, uploaded: str, caplog: pytest.LogCaptureFixture) -> None:
    _sweep(lambda: kvlog.Log.open(secret_uri(f"{uploaded}/no-such-0", port=s3.port), read_only=True), caplog,
           FileNotFoundError)
    _sweep(lambda: kvlog.LogManager(secret_uri(f"{uploaded}-gone", port=s3.port), read_only=True), caplog,
           KvlogError)
    with kvlog.LogManager(secret_uri(uploaded, port=s3.port), read_only=True) as m:
        _sweep(lambda: m.log("orders", 3), caplog, KvlogError)
    store = storage.store_for(secret_uri(uploaded, port=s3.port))
    _sweep(lambda: store.open_ranged(f"s3://{BUCKET}/{uploaded}/orders-0/missing.log"), caplog, KvlogError)


def _mirror_from_a_missing_backup(s3: S3Server, uploaded: str, tmp_path: Any,
                                  caplog: pytest.LogCaptureFixture) -> None:
    from kvlog.mirror import mirror_directory

    _sweep(lambda: mirror_directory(secret_uri(f"{uploaded}-gone", port=s3.port), str(tmp_path / "t")), caplog,
           KvlogError)


def _refused_credentials(s3: S3Server, uploaded: str, caplog: pytest.LogCaptureFixture) -> None:
    s3.proxy.deny_key(ACCESS)
    uri = secret_uri(f"{uploaded}/orders-0", port=s3.proxy.port)
    _sweep(lambda: kvlog.Log.open(uri, read_only=True), caplog, KvlogError)
    _sweep(lambda: kvlog.LogManager(secret_uri(uploaded, port=s3.proxy.port), read_only=True).topics(), caplog,
           KvlogError)
    _sweep(lambda: kvlog.consumer_offsets(secret_uri(uploaded, port=s3.proxy.port)), caplog, KvlogError)


def _server_errors_after_retries(s3: S3Server, uploaded: str, caplog: pytest.LogCaptureFixture) -> None:
    uri = secret_uri(f"{uploaded}/orders-0", port=s3.proxy.port)
    store = storage.store_for(uri)
    saved = store.fs, store.backoff_s
    store.fs = pafs.S3FileSystem(access_key=ACCESS, secret_key=SECRET, region="us-east-1", scheme="http",
                                 endpoint_override=f"127.0.0.1:{s3.proxy.port}",
                                 retry_strategy=pafs.AwsStandardS3RetryStrategy(max_attempts=1))
    store.backoff_s = 0.001
    try:
        s3.proxy.fail(-1, 500, "InternalError", match=".log")
        _sweep(lambda: kvlog.Log.open(uri, read_only=True).to_arrow(), caplog, KvlogError)
    finally:
        store.fs, store.backoff_s = saved
        s3.proxy.clear()


CLI_CASES = [
    ["verify", "{root}"],
    ["verify", "{partition}"],
    ["dump", "--files", "{segment}"],
    ["dump", "--files", "{missing_segment}"],
    ["offsets", "{partition}", "--timestamp", "0"],
    ["mirror", "{root}", "{local}"],
    ["mirror", "{local_source}", "{root}"],  # a remote target: refused
]


def test_cli_output_names_no_secret(s3, uploaded, tmp_path, capfd):
    _write_log(str(tmp_path / "src" / "orders-0"), 2)
    s3.proxy.deny_key(ACCESS)
    fill = {"root": secret_uri(uploaded, port=s3.proxy.port),
            "partition": secret_uri(f"{uploaded}/orders-0", port=s3.proxy.port), "local": str(tmp_path / "copy"),
            "segment": secret_uri(f"{uploaded}/orders-0/00000000000000000000.log", port=s3.proxy.port),
            "missing_segment": secret_uri(f"{uploaded}/orders-0/00000000000000000099.log", port=s3.proxy.port),
            "local_source": str(tmp_path / "src")}
    for args in CLI_CASES:
        argv = [a.format(**fill) for a in args]
        capfd.readouterr()
        code = cli_main(argv)
        out, err = capfd.readouterr()
        assert code != 0 and "kvlog:" in err, (args, out, err)
        try:
            assert_no_secrets([out, err])
        except AssertionError as exc:
            raise AssertionError(f"{args}: {exc}") from None


def test_internal_topic_readers_name_no_secret_for_a_missing_topic(s3, uploaded, caplog):
    # the backup holds orders-0 only: no __cluster_metadata-0, no __consumer_offsets
    err = _sweep(lambda: kvlog.cluster_metadata(secret_uri(uploaded, port=s3.port)), caplog, KvlogError)
    assert isinstance(err, FileNotFoundError)
    _sweep(lambda: kvlog.consumer_offsets(secret_uri(f"{uploaded}-gone", port=s3.port)), caplog, KvlogError)
