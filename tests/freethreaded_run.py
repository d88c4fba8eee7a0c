"""pytest plugin for the suite on a free-threaded CPython (``make test-freethreaded`` loads it with ``-p``).

Some of the suite's optional packages have no build for a free-threaded 3.13 interpreter (see
docs/install.md, "Free-threaded Python"): a test module or fixture needing one of them is skipped with the
package named, instead of failing to import; everything else runs as in ``make test``. At the start it
checks that the GIL is off with kvlog imported, and that no kvlog module asked for it.
"""

from __future__ import annotations

import importlib.util
import sys
import sysconfig
import warnings
from pathlib import Path

import pytest

# test modules → the packages they import at the top (directly or through a helper module)
MODULES = {
    "test_scan.py": ("polars", "duckdb"),
    "test_tiered_aiven.py": ("cryptography",),
    "test_spark_tiered_jvm_aiven.py": ("cryptography",),
    # Confluent's serializers are the typed topics' oracle; confluent-kafka has no cp313t build
    "test_typed_avro.py": ("confluent_kafka",),
    "test_typed_json.py": ("confluent_kafka",),
    "test_typed_protobuf.py": ("confluent_kafka",),
    "test_schema_writes.py": ("confluent_kafka",),
    "test_broker_typed_topics.py": ("confluent_kafka",),
    # grpcio-tools (protoc, the .proto parser's oracle) has no cp313t build either
    "test_proto_text.py": ("grpc_tools",),
    # pyiceberg's Rust transforms (pyiceberg-core) have no cp313t build
    **{f"test_iceberg_{m}.py": ("pyiceberg", "pyiceberg_core")
       for m in ("export", "exactly_once", "typed", "upsert", "cli", "sources")},
    "test_broker_iceberg.py": ("pyiceberg", "pyiceberg_core"),
}
# fixtures → the package they need
FIXTURES = {"s3": "moto"}
# packages whose absence turns a test's ModuleNotFoundError into a skip (the test or its helper imports one
# inside: the Aiven layout's writer imports cryptography)
OPTIONAL = ("polars", "duckdb", "cryptography", "moto", "confluent_kafka", "grpc_tools", "pyiceberg", "pyiceberg_core")
# tests that need every optional package although they import none (mypy checks kvlog's modules against them)
WHOLE = ("test_mypy_strict_clean",)


def _missing(*packages: str) -> list[str]:
    return [p for p in packages if importlib.util.find_spec(p) is None]


def pytest_configure(config: pytest.Config) -> None:
    if not sysconfig.get_config_var("Py_GIL_DISABLED"):
        raise pytest.UsageError("tests/freethreaded_run.py is for a free-threaded CPython")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import kvlog  # noqa: F401
        import kvlog._core.crc, kvlog._core.index, kvlog._core.offset_map  # noqa: E401, F401
        import kvlog._core.partitioner, kvlog._core.point, kvlog._core.records, kvlog._core.typed  # noqa: E401, F401
    asked = [str(w.message) for w in caught if "GIL" in str(w.message)]
    ours = [m for m in asked if "'kvlog" in m]
    if ours:
        raise pytest.UsageError("kvlog modules re-enabled the GIL: " + "; ".join(ours))
    if sys._is_gil_enabled():
        raise pytest.UsageError("the GIL is on with kvlog imported (run with PYTHON_GIL=0): " + "; ".join(asked))
    config._kvlog_ft_note = asked  # type: ignore[attr-defined]


def pytest_report_header(config: pytest.Config) -> list[str]:
    note = getattr(config, "_kvlog_ft_note", [])
    lines = [f"free-threaded CPython {sys.version.split()[0]}: GIL {'on' if sys._is_gil_enabled() else 'off'}"]
    lines += [f"  (without PYTHON_GIL=0: {m})" for m in note]
    return lines


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    needs = MODULES.get(collection_path.name)
    if needs and _missing(*needs):
        print(f"\nfree-threaded run: {collection_path.name} not collected, no {', '.join(_missing(*needs))} here",
              file=sys.stderr)
        return True
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    for fixture, package in FIXTURES.items():
        if fixture in getattr(item, "fixturenames", ()) and _missing(package):
            pytest.skip(f"no {package} on this free-threaded interpreter")
    if item.name in WHOLE and _missing(*OPTIONAL):
        pytest.skip(f"no {', '.join(_missing(*OPTIONAL))} on this free-threaded interpreter")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    exc = call.excinfo.value if call.excinfo is not None else None
    if isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] in _missing(*OPTIONAL):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0,
                           f"Skipped: no {exc.name.split('.')[0]} on this free-threaded interpreter")
