"""LogConfig: Kafka's defaults and validators, property parsing, derived values, immutability."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvlog.config as config_module
from kvlog.compression import Compression
from kvlog.config import (
    IGNORED_TOPIC_CONFIGS,
    LONG_MAX,
    TOPIC_CONFIGS,
    LogConfig,
    config_table_markdown,
)
from kvlog.errors import ConfigError
from kvlog.records import TimestampType

INT_MAX = 2**31 - 1
LONG_MIN = -(2**63)

# KAFKA_FORMAT.md §13 (Kafka 4.0 LogConfig / ServerLogConfigs defaults), as Kafka prints them.
KAFKA_DEFAULTS = {
    "segment.bytes": "1073741824",
    "segment.ms": "604800000",
    "segment.jitter.ms": "0",
    "segment.index.bytes": "10485760",
    "index.interval.bytes": "4096",
    "retention.ms": "604800000",
    "retention.bytes": "-1",
    "cleanup.policy": "delete",
    "min.cleanable.dirty.ratio": "0.5",
    "delete.retention.ms": "86400000",
    "min.compaction.lag.ms": "0",
    "max.compaction.lag.ms": "9223372036854775807",
    "file.delete.delay.ms": "60000",
    "max.message.bytes": "1048588",
    "message.timestamp.type": "CreateTime",
    "message.timestamp.difference.max.ms": "9223372036854775807",
    "message.timestamp.before.max.ms": "9223372036854775807",
    "message.timestamp.after.max.ms": "9223372036854775807",
    "flush.messages": "9223372036854775807",
    "flush.ms": "9223372036854775807",
    "preallocate": "false",
    "compression.type": "producer",
    "compression.gzip.level": "-1",
    "compression.lz4.level": "9",
    "compression.zstd.level": "3",
}
NON_KAFKA = {
    "compaction.strategy": "offset",
    "compaction.strategy.header": "",
    "kvlog.fsync.per.append": "false",
}


def kafka(field: str) -> str:
    return next(f.metadata["kafka"] for f in dataclasses.fields(LogConfig) if f.name == field)


# ------------------------------------------------------------------------------------------ defaults


def test_defaults_equal_kafka():
    assert LogConfig().to_properties() == {**KAFKA_DEFAULTS, **NON_KAFKA}
    assert LogConfig().to_properties(kafka_only=True) == KAFKA_DEFAULTS


def test_default_values_are_typed():
    c = LogConfig()
    assert c.segment_bytes == 1 << 30
    assert c.segment_ms == 7 * 24 * 3600 * 1000
    assert c.cleanup_policy == ("delete",) and c.delete and not c.compact
    assert c.min_cleanable_dirty_ratio == 0.5 and isinstance(c.min_cleanable_dirty_ratio, float)
    assert c.message_timestamp_type is TimestampType.CREATE_TIME
    assert c.max_compaction_lag_ms == LONG_MAX == 9223372036854775807
    assert c.preallocate is False and c.fsync_per_append is False
    assert c.compaction_strategy == "offset" and c.compaction_strategy_header == ""
    assert c.compression is None and c.compression_level is None
    assert c.init_file_size == 0


def test_topic_configs_table():
    fields = dataclasses.fields(LogConfig)
    assert [s.name for s in TOPIC_CONFIGS.values()] == [f.name for f in fields]
    default = LogConfig()
    for name, spec in TOPIC_CONFIGS.items():
        assert spec.kafka_name == name
        assert getattr(default, spec.name) == spec.default
        assert spec.doc and spec.origin in ("kafka", "kip-280", "kvlog")
    assert {n for n, s in TOPIC_CONFIGS.items() if s.origin != "kafka"} == set(NON_KAFKA)
    assert not IGNORED_TOPIC_CONFIGS & set(TOPIC_CONFIGS)


def test_config_table_markdown():
    table = config_table_markdown()
    lines = table.strip().splitlines()
    assert lines[0] == "| Kafka name | kvlog name | default | meaning |"
    assert len(lines) == 2 + len(TOPIC_CONFIGS)
    assert "| `segment.bytes` | `segment_bytes` | `1073741824` |" in table
    assert '| `compaction.strategy.header` | `compaction_strategy_header` | `""` |' in table
    assert all(line.count(" | ") == 3 for line in lines[2:])


def test_docstring_lists_every_field():
    doc = inspect.getdoc(LogConfig) or ""
    for spec in TOPIC_CONFIGS.values():
        assert f"{spec.name}: ``{spec.kafka_name}``" in doc


def test_type_checking_signature_matches_fields():
    """The ``if TYPE_CHECKING: def __init__`` seen by type checkers lists exactly the fields, in order."""
    tree = ast.parse(inspect.getsource(config_module))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "LogConfig")
    init = next(n for block in cls.body if isinstance(block, ast.If)
                for n in block.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    assert [a.arg for a in init.args.kwonlyargs] == [f.name for f in dataclasses.fields(LogConfig)]
    assert not init.args.args[1:]


# -------------------------------------------------------------------------------- validator bounds

AT_LEAST = [
    ("segment_bytes", 14),
    ("segment_ms", 1),
    ("segment_jitter_ms", 0),
    ("segment_index_bytes", 4),
    ("index_interval_bytes", 0),
    ("retention_ms", -1),
    ("retention_bytes", LONG_MIN),
    ("delete_retention_ms", 0),
    ("min_compaction_lag_ms", 0),
    ("max_compaction_lag_ms", 1),
    ("file_delete_delay_ms", 0),
    ("max_message_bytes", 0),
    ("message_timestamp_difference_max_ms", 0),
    ("message_timestamp_before_max_ms", 0),
    ("message_timestamp_after_max_ms", 0),
    ("flush_messages", 1),
    ("flush_ms", 0),
]
INT32_FIELDS = {"segment_bytes", "segment_index_bytes", "index_interval_bytes", "max_message_bytes"}


@pytest.mark.parametrize(("field", "low"), AT_LEAST)
def test_lower_bound(field, low):
    assert getattr(LogConfig(**{field: low}), field) == low
    with pytest.raises(ConfigError, match=f"^{kafka(field)} must be at least {low}, got {low - 1}$"):
        LogConfig(**{field: low - 1})


@pytest.mark.parametrize(("field", "low"), AT_LEAST)
def test_upper_bound(field, low):
    high = INT_MAX if field in INT32_FIELDS else LONG_MAX
    assert getattr(LogConfig(**{field: high}), field) == high
    with pytest.raises(ConfigError, match=f"^{kafka(field)} must be at most {high}, got {high + 1}$"):
        LogConfig(**{field: high + 1})


def test_message_example():
    with pytest.raises(ConfigError) as e:
        LogConfig(segment_bytes=10)
    assert str(e.value) == "segment.bytes must be at least 14, got 10"
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("ok", [0, 0.0, 0.25, 1, 1.0])
def test_dirty_ratio_in_range(ok):
    c = LogConfig(min_cleanable_dirty_ratio=ok)
    assert c.min_cleanable_dirty_ratio == ok and type(c.min_cleanable_dirty_ratio) is float


@pytest.mark.parametrize("bad", [-1e-9, math.nextafter(1.0, 2.0), 2, math.nan, math.inf, -math.inf])
def test_dirty_ratio_out_of_range(bad):
    with pytest.raises(ConfigError, match="^min.cleanable.dirty.ratio must be between 0 and 1"):
        LogConfig(min_cleanable_dirty_ratio=bad)


@pytest.mark.parametrize(("field", "good", "bad"), [
    ("compression_gzip_level", [-1, 1, 9], [-2, 0, 10]),
    ("compression_lz4_level", [1, 9, 17], [0, 18, -1]),
    ("compression_zstd_level", [-131072, -1, 0, 22], [-131073, 23]),
])
def test_compression_levels(field, good, bad):
    for v in good:
        assert getattr(LogConfig(**{field: v}), field) == v
    for v in bad:
        with pytest.raises(ConfigError, match=f"^{kafka(field)} must be "):
            LogConfig(**{field: v})


def test_compaction_lags_must_be_ordered():
    assert LogConfig(min_compaction_lag_ms=5, max_compaction_lag_ms=5).min_compaction_lag_ms == 5
    lag_error = r"min.compaction.lag.ms \(6\) must not exceed max.compaction.lag.ms \(5\)"
    with pytest.raises(ConfigError, match=lag_error):
        LogConfig(min_compaction_lag_ms=6, max_compaction_lag_ms=5)


# ------------------------------------------------------------------------------------- field types


@pytest.mark.parametrize("bad", ["1048576", True, False, 1.0, None, b"1"])
def test_int_fields_reject_other_types(bad):
    with pytest.raises(ConfigError, match="^segment.bytes must be an integer, got "):
        LogConfig(segment_bytes=bad)


def test_integral_types_are_accepted_and_stored_as_int():
    c = LogConfig(segment_bytes=np.int64(1 << 20), retention_ms=np.int32(5))
    assert type(c.segment_bytes) is int and c.segment_bytes == 1 << 20
    assert type(c.retention_ms) is int


@pytest.mark.parametrize(("field", "bad"), [
    ("preallocate", 1), ("preallocate", "true"), ("fsync_per_append", None),
    ("min_cleanable_dirty_ratio", "0.5"), ("min_cleanable_dirty_ratio", True),
    ("compaction_strategy_header", 5), ("compaction_strategy", None),
])
def test_other_fields_reject_wrong_types(field, bad):
    with pytest.raises(ConfigError, match=f"^{kafka(field)} must be "):
        LogConfig(**{field: bad})


@pytest.mark.parametrize(("value", "expected"), [
    ("delete", ("delete",)),
    ("compact", ("compact",)),
    ("compact,delete", ("compact", "delete")),
    ("delete, compact", ("compact", "delete")),
    (["delete", "compact"], ("compact", "delete")),
    (("compact",), ("compact",)),
    ({"delete"}, ("delete",)),
    ("", ()),
    ([], ()),
])
def test_cleanup_policy_forms(value, expected):
    c = LogConfig(cleanup_policy=value)
    assert c.cleanup_policy == expected
    assert c.compact == ("compact" in expected) and c.delete == ("delete" in expected)


@pytest.mark.parametrize(
    "bad", ["Compact", "compact,", "compact,compact", ["delete", "delete"], "retain", 5, [1]])
def test_cleanup_policy_rejects(bad):
    with pytest.raises(ConfigError, match="^cleanup.policy "):
        LogConfig(cleanup_policy=bad)


@pytest.mark.parametrize(("value", "expected"), [
    ("CreateTime", TimestampType.CREATE_TIME),
    ("LogAppendTime", TimestampType.LOG_APPEND_TIME),
    (TimestampType.CREATE_TIME, TimestampType.CREATE_TIME),
    (TimestampType.LOG_APPEND_TIME, TimestampType.LOG_APPEND_TIME),
])
def test_timestamp_type_names(value, expected):
    c = LogConfig(message_timestamp_type=value)
    assert c.message_timestamp_type is expected
    assert c.to_properties()["message.timestamp.type"] == expected.kafka_name


@pytest.mark.parametrize("bad", ["createtime", "LOG_APPEND_TIME", "NoTimestampType",
                                 TimestampType.NO_TIMESTAMP_TYPE, 0, 1, None])
def test_timestamp_type_rejects(bad):
    with pytest.raises(ConfigError, match="^message.timestamp.type must be CreateTime or LogAppendTime"):
        LogConfig(message_timestamp_type=bad)


@pytest.mark.parametrize(("value", "stored", "codec", "level"), [
    ("producer", "producer", None, None),
    ("uncompressed", "uncompressed", Compression.NONE, None),
    ("gzip", "gzip", Compression.GZIP, -1),
    ("snappy", "snappy", Compression.SNAPPY, None),
    ("lz4", "lz4", Compression.LZ4, 9),
    ("zstd", "zstd", Compression.ZSTD, 3),
    (Compression.NONE, "uncompressed", Compression.NONE, None),
    (Compression.ZSTD, "zstd", Compression.ZSTD, 3),
])
def test_compression_type(value, stored, codec, level):
    c = LogConfig(compression_type=value)
    assert c.compression_type == stored
    assert c.compression is codec
    assert c.compression_level == level


@pytest.mark.parametrize("bad", ["none", "GZIP", "brotli", "", 1])
def test_compression_type_rejects(bad):
    with pytest.raises(ConfigError, match="^compression.type must be one of "):
        LogConfig(compression_type=bad)


# ---------------------------------------------------------------------------- derived properties


def test_kip937_fallback():
    c = LogConfig()
    assert c.effective_timestamp_before_max_ms == c.effective_timestamp_after_max_ms == LONG_MAX
    c = LogConfig(message_timestamp_difference_max_ms=1000)
    assert c.effective_timestamp_before_max_ms == 1000 and c.effective_timestamp_after_max_ms == 1000
    c = LogConfig(message_timestamp_difference_max_ms=1000, message_timestamp_before_max_ms=5)
    assert c.effective_timestamp_before_max_ms == 5 and c.effective_timestamp_after_max_ms == 1000
    c = LogConfig(message_timestamp_difference_max_ms=1000, message_timestamp_after_max_ms=7)
    assert c.effective_timestamp_before_max_ms == 1000 and c.effective_timestamp_after_max_ms == 7
    # explicit limits larger than the deprecated one still win
    c = LogConfig(message_timestamp_difference_max_ms=10, message_timestamp_before_max_ms=LONG_MAX - 1)
    assert c.effective_timestamp_before_max_ms == LONG_MAX - 1


@pytest.mark.parametrize(("strategy", "header", "stored", "effective"), [
    ("offset", "", "offset", "offset"),
    ("", "", "offset", "offset"),
    ("  ", "v", "offset", "offset"),
    ("timestamp", "", "timestamp", "timestamp"),
    (" TimeStamp ", "", "timestamp", "timestamp"),
    ("header", "version", "header", "header"),
    ("HEADER", " version ", "header", "header"),
    ("header", "", "header", "offset"),
    ("header", "   ", "header", "offset"),
])
def test_kip280_strategy(strategy, header, stored, effective):
    c = LogConfig(compaction_strategy=strategy, compaction_strategy_header=header)
    assert c.compaction_strategy == stored
    assert c.effective_compaction_strategy == effective
    assert c.compaction_strategy_header == header.strip()


@pytest.mark.parametrize("bad", ["version", "latest", "offset,timestamp"])
def test_kip280_strategy_rejects(bad):
    with pytest.raises(ConfigError, match="^compaction.strategy must be one of offset, timestamp, header"):
        LogConfig(compaction_strategy=bad)


@pytest.mark.parametrize(("policy", "segment_ms", "max_lag", "expected"), [
    ("delete", 1000, 10, 1000),
    ("compact", 1000, 10, 10),
    ("compact,delete", 1000, 10, 10),
    ("compact", 1000, 5000, 1000),
    ("compact", 1000, LONG_MAX, 1000),
    ("compact", 1000, 1000, 1000),
    ("", 1000, 10, 1000),
])
def test_max_segment_ms(policy, segment_ms, max_lag, expected):
    c = LogConfig(cleanup_policy=policy, segment_ms=segment_ms, max_compaction_lag_ms=max_lag)
    assert c.max_segment_ms == expected


def test_segment_jitter_and_init_size():
    assert LogConfig().random_segment_jitter() == 0
    c = LogConfig(segment_jitter_ms=50, segment_ms=20)
    rng = random.Random(7)
    draws = {c.random_segment_jitter(rng) for _ in range(400)}
    assert draws == set(range(20))
    assert LogConfig(preallocate=True, segment_bytes=4096).init_file_size == 4096


# ----------------------------------------------------------------------------- immutability, replace


def test_immutable_and_hashable():
    c = LogConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.segment_bytes = 100  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        c.extra = 1  # type: ignore[attr-defined]
    assert not hasattr(c, "__dict__")
    assert c == LogConfig() and hash(c) == hash(LogConfig())
    assert LogConfig(cleanup_policy="delete,compact") == LogConfig(cleanup_policy=["compact", "delete"])
    assert len({c, LogConfig(), LogConfig(segment_ms=5)}) == 2


def test_keyword_only():
    with pytest.raises(TypeError):
        LogConfig(1 << 20)  # type: ignore[misc]


def test_replace():
    c = LogConfig()
    d = c.replace(segment_bytes=1 << 20, cleanup_policy="compact")
    assert d.segment_bytes == 1 << 20 and d.cleanup_policy == ("compact",)
    assert c.segment_bytes == 1 << 30 and c.cleanup_policy == ("delete",)
    assert d.replace() == d
    with pytest.raises(ConfigError, match="^segment.bytes must be at least 14, got 13$"):
        c.replace(segment_bytes=13)
    with pytest.raises(ConfigError, match="min.compaction.lag.ms"):
        c.replace(max_compaction_lag_ms=10).replace(min_compaction_lag_ms=11)
    with pytest.raises(ConfigError, match=r"field 'segment_byte'; did you mean 'segment_bytes'"):
        c.replace(segment_byte=1)


# ---------------------------------------------------------------------------------- from_properties


def test_from_properties_parses_strings():
    c = LogConfig.from_properties({
        "segment.bytes": "1048576",
        "segment.ms": " 60000 ",
        "retention.bytes": "-1",
        "retention.ms": "+5",
        "cleanup.policy": "compact,delete",
        "min.cleanable.dirty.ratio": ".25",
        "preallocate": "TRUE",
        "kvlog.fsync.per.append": "true",
        "message.timestamp.type": "LogAppendTime",
        "compression.type": " zstd ",
        "compression.zstd.level": "-5",
        "compaction.strategy": "Header",
        "compaction.strategy.header": "version",
        "max.compaction.lag.ms": "9223372036854775807",
    })
    assert c.segment_bytes == 1048576 and c.segment_ms == 60000 and c.retention_ms == 5
    assert c.cleanup_policy == ("compact", "delete")
    assert c.min_cleanable_dirty_ratio == 0.25
    assert c.preallocate is True and c.fsync_per_append is True
    assert c.message_timestamp_type is TimestampType.LOG_APPEND_TIME
    assert c.compression is Compression.ZSTD and c.compression_level == -5
    assert c.effective_compaction_strategy == "header" and c.compaction_strategy_header == "version"
    assert c.max_compaction_lag_ms == LONG_MAX


def test_from_properties_native_values():
    c = LogConfig.from_properties({
        "segment.bytes": 1 << 20,
        "preallocate": True,
        "cleanup.policy": ["compact"],
        "min.cleanable.dirty.ratio": 1,
        "message.timestamp.type": TimestampType.LOG_APPEND_TIME,
    })
    assert c == LogConfig(segment_bytes=1 << 20, preallocate=True, cleanup_policy="compact",
                          min_cleanable_dirty_ratio=1.0, message_timestamp_type="LogAppendTime")
    assert LogConfig.from_properties({}) == LogConfig()


@pytest.mark.parametrize(("key", "value", "message"), [
    ("segment.bytes", "1_048_576", "segment.bytes must be an integer, got '1_048_576'"),
    ("segment.bytes", "1e6", "segment.bytes must be an integer"),
    ("segment.bytes", "", "segment.bytes must be an integer, got ''"),
    ("segment.bytes", "0x10", "segment.bytes must be an integer"),
    ("segment.bytes", "٣", "segment.bytes must be an integer"),
    ("segment.bytes", "10", "segment.bytes must be at least 14, got 10"),
    ("segment.bytes", "2147483648", "segment.bytes must be at most 2147483647"),
    ("retention.ms", "9223372036854775808", "retention.ms must be at most"),
    ("preallocate", "yes", "preallocate must be true or false, got 'yes'"),
    ("preallocate", "1", "preallocate must be true or false"),
    ("preallocate", 1, "preallocate must be a boolean"),
    ("min.cleanable.dirty.ratio", "NaN", "min.cleanable.dirty.ratio must be a number"),
    ("min.cleanable.dirty.ratio", "1.5", "min.cleanable.dirty.ratio must be between 0 and 1, got 1.5"),
    ("message.timestamp.type", "createtime", "message.timestamp.type must be CreateTime or LogAppendTime"),
    ("cleanup.policy", "compact;delete", "cleanup.policy values must be 'compact' or 'delete'"),
    ("compression.type", "none", "compression.type must be one of"),
    ("segment.bytes", None, "segment.bytes must have a value"),
])
def test_from_properties_bad_values(key, value, message):
    with pytest.raises(ConfigError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        LogConfig.from_properties({key: value})


def test_from_properties_empty_policy_and_header():
    c = LogConfig.from_properties({"cleanup.policy": " ", "compaction.strategy": "header",
                                   "compaction.strategy.header": ""})
    assert c.cleanup_policy == () and not c.compact and not c.delete
    assert c.effective_compaction_strategy == "offset"


def test_unknown_names():
    with pytest.raises(ConfigError, match=r"config 'segment.byte'; did you mean 'segment.bytes'"):
        LogConfig.from_properties({"segment.byte": "1"})
    with pytest.raises(ConfigError, match=r"unknown topic config 'log.segment.bytes'; did you mean 'segm"):
        LogConfig.from_properties({"log.segment.bytes": "1048576"})
    with pytest.raises(ConfigError, match=r"did you mean 'segment.bytes'"):
        LogConfig.from_properties({"segment_bytes": 1 << 20})
    with pytest.raises(ConfigError, match=r"^unknown topic config 'zzzz'$"):
        LogConfig.from_properties({"zzzz": "1"})
    with pytest.raises(ConfigError, match="config names must be strings"):
        LogConfig.from_properties({1: "1"})  # type: ignore[dict-item]
    with pytest.raises(ConfigError, match="properties must be a mapping"):
        LogConfig.from_properties([("segment.bytes", "1")])  # type: ignore[arg-type]
    lenient = LogConfig.from_properties({"segment.byte": "1", "log.retention.hours": "1", "segment.ms": "5"},
                                        strict=False)
    assert lenient == LogConfig(segment_ms=5)


def test_unknown_name_still_validates_known_values_when_lenient():
    with pytest.raises(ConfigError, match="segment.bytes must be at least 14"):
        LogConfig.from_properties({"nope": "1", "segment.bytes": "1"}, strict=False)


@pytest.mark.parametrize("name", sorted(IGNORED_TOPIC_CONFIGS))
def test_ignored_kafka_names(name):
    assert LogConfig.from_properties({name: "anything", "segment.ms": "9"}) == LogConfig(segment_ms=9)


def test_message_format_version_is_ignored():
    assert LogConfig.from_properties({"message.format.version": "2.8-IV1"}) == LogConfig()


# ----------------------------------------------------------------------------------- round trips


def _int(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from([lo, hi]), st.integers(lo, hi))


VALID = {
    "segment_bytes": _int(14, INT_MAX),
    "segment_ms": _int(1, LONG_MAX),
    "segment_jitter_ms": _int(0, LONG_MAX),
    "segment_index_bytes": _int(4, INT_MAX),
    "index_interval_bytes": _int(0, INT_MAX),
    "retention_ms": _int(-1, LONG_MAX),
    "retention_bytes": _int(LONG_MIN, LONG_MAX),
    "cleanup_policy": st.one_of(
        st.lists(st.sampled_from(["compact", "delete"]), unique=True),
        st.sampled_from(["", "compact", "delete", "compact,delete", "delete,compact"])),
    "min_cleanable_dirty_ratio": st.floats(0.0, 1.0),
    "delete_retention_ms": _int(0, LONG_MAX),
    "file_delete_delay_ms": _int(0, LONG_MAX),
    "max_message_bytes": _int(0, INT_MAX),
    "message_timestamp_type": st.sampled_from(
        ["CreateTime", "LogAppendTime", TimestampType.CREATE_TIME, TimestampType.LOG_APPEND_TIME]),
    "message_timestamp_difference_max_ms": _int(0, LONG_MAX),
    "message_timestamp_before_max_ms": _int(0, LONG_MAX),
    "message_timestamp_after_max_ms": _int(0, LONG_MAX),
    "flush_messages": _int(1, LONG_MAX),
    "flush_ms": _int(0, LONG_MAX),
    "preallocate": st.booleans(),
    "compression_type": st.sampled_from(
        ["producer", "uncompressed", "gzip", "snappy", "lz4", "zstd", *Compression]),
    "compression_gzip_level": st.sampled_from([-1, *range(1, 10)]),
    "compression_lz4_level": st.integers(1, 17),
    "compression_zstd_level": _int(-131072, 22),
    "compaction_strategy": st.sampled_from(["", "offset", "timestamp", "header", "Header", " TIMESTAMP "]),
    "compaction_strategy_header": st.text(max_size=12),
    "fsync_per_append": st.booleans(),
}


@st.composite
def configs(draw: st.DrawFn) -> LogConfig:
    chosen = draw(st.sets(st.sampled_from(sorted(VALID))))
    kwargs = {name: draw(VALID[name]) for name in chosen}
    lags = sorted(draw(st.lists(_int(1, LONG_MAX), min_size=2, max_size=2)))
    if draw(st.booleans()):
        kwargs["min_compaction_lag_ms"], kwargs["max_compaction_lag_ms"] = lags
    return LogConfig(**kwargs)


def test_every_field_has_a_round_trip_strategy():
    names = {f.name for f in dataclasses.fields(LogConfig)}
    assert set(VALID) | {"min_compaction_lag_ms", "max_compaction_lag_ms"} == names


@given(configs())
def test_properties_round_trip(c):
    props = c.to_properties()
    assert list(props) == list(TOPIC_CONFIGS)
    assert all(isinstance(v, str) for v in props.values())
    assert LogConfig.from_properties(props) == c
    assert c.replace() == c
    kafka_props = c.to_properties(kafka_only=True)
    assert set(props) - set(kafka_props) == set(NON_KAFKA)
    assert LogConfig.from_properties(kafka_props) == c.replace(
        compaction_strategy="offset", compaction_strategy_header="", fsync_per_append=False)


@given(configs())
def test_native_properties_round_trip(c):
    native = {spec.kafka_name: getattr(c, spec.name) for spec in TOPIC_CONFIGS.values()}
    assert LogConfig.from_properties(native) == c
