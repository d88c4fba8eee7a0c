"""Batch-planning cases both Spark planners are checked against (tests/test_planning_cases.py).

A case names a data directory (``DATASETS``), the read options, and either the offset ranges Spark's Kafka source
would plan, ``(topic, partition, start, end)`` after the maxRecordsPerPartition and minPartitions splits (in any
order), or a substring of the error. Expected values follow Spark's Kafka source and Kafka's ListOffsets by
timestamp (the earliest offset whose timestamp is at or after the target; none: latest for an end, an error or the
end for a start). Where an engine departs from that, ``deviates`` says how and the case is an xfail for it.

Two choices of kvlog's are encoded as they are: a subscribed or assigned topic that does not exist is an error
(docs/spark.md; Spark's Kafka source would find no partition and read nothing), and JSON endingOffsets below
startingOffsets are refused while the options are parsed (Spark's option checks do not compare them).
"""

from __future__ import annotations

import json
import pathlib
from dataclasses import dataclass, field

import kvlog

Range = tuple[str, int, int, int]


@dataclass(frozen=True)
class Partition:
    """One partition log: a record per timestamp, appended ``per_batch`` at a time; ``delete_before`` raises the
    log start offset as ``delete_records`` (or retention) would."""

    timestamps: tuple[int, ...]
    delete_before: int = 0
    per_batch: int = 2


def _steps(first: int, step: int, n: int) -> tuple[int, ...]:
    return tuple(first + step * i for i in range(n))


DATASETS: dict[str, dict[str, tuple[Partition, ...]]] = {
    "shop": {
        # clicks-0 1000..1090, clicks-1 2000..2090, clicks-2 1500..1800
        "clicks": (Partition(_steps(1000, 10, 10)), Partition(_steps(2000, 10, 10)), Partition(_steps(1500, 100, 4))),
        # views-0 100..600, views-1 150..650
        "views": (Partition(_steps(100, 100, 6)), Partition(_steps(150, 100, 6))),
        # 20 records (5000..5019), offsets 0..4 deleted: log start offset 5
        "trimmed": (Partition(_steps(5000, 1, 20), delete_before=5, per_batch=4),),
        # CreateTime stamps out of order, as producers may write them
        "wobble": (Partition((100, 300, 200, 400, 250, 500)),),
        "quiet": (Partition(()),),  # a partition with no record
        "__audit": (Partition((1, 2)),),  # an internal topic (its name starts with __)
    },
}


def build(name: str, root: pathlib.Path) -> pathlib.Path:
    """Writes dataset ``name`` under ``root`` with kvlog's log API; returns the data directory."""
    config = kvlog.LogConfig(segment_bytes=400, index_interval_bytes=64)
    with kvlog.LogManager(root, config) as manager:
        for topic, partitions in DATASETS[name].items():
            for spec, log in zip(partitions, manager.create_topic(topic, len(partitions))):
                stamps = spec.timestamps
                for lo in range(0, len(stamps), spec.per_batch):
                    log.append([kvlog.Record(b"k", b"%s-%d" % (topic.encode(), o), timestamp=stamps[o])
                                for o in range(lo, min(lo + spec.per_batch, len(stamps)))])
                if spec.delete_before:
                    log.delete_records(spec.delete_before)
                log.flush()
    return root


@dataclass(frozen=True)
class Case:
    """Options for a batch read of ``data`` and the ranges (or the error substring) Spark's Kafka source gives."""

    id: str
    options: dict[str, str]
    ranges: list[Range] | None = None
    error: str | None = None
    data: str = "shop"
    # engine ("python", "jvm") -> how it answers otherwise; the case is an xfail for that engine
    deviates: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        assert (self.ranges is None) != (self.error is None), self.id


def js(value: object) -> str:
    return json.dumps(value)


# Kafka's ListOffsets reads these targets as offsets, not times; Spark's Admin-based offset reader passes a
# *ByTimestamp value to it as it is (OffsetSpec.forTimestamp).

def _whole(topic: str, *ends: int) -> list[Range]:
    return [(topic, p, 0, e) for p, e in enumerate(ends)]


CLICKS = _whole("clicks", 10, 10, 4)
VIEWS = _whole("views", 6, 6)
TRIMMED = [("trimmed", 0, 5, 20)]

CASES: list[Case] = [
    # ---------------------------------------------------------------------------------------- subscription
    Case("subscribe-one-topic", {"subscribe": "views"}, VIEWS),
    Case("option-names-are-case-insensitive",
         {"SUBSCRIBE": "views", "startingoffsets": js({"views": {"0": 1, "1": 2}}), "EndingOffsets": "LATEST"},
         [("views", 0, 1, 6), ("views", 1, 2, 6)]),
    Case("subscribe-several-topics-spaces-and-repeats", {"subscribe": " views, clicks ,views"}, CLICKS + VIEWS),
    Case("subscribe-a-topic-without-records", {"subscribe": "quiet"}, []),
    Case("subscribe-an-internal-topic-by-name", {"subscribe": "__audit"}, [("__audit", 0, 0, 2)]),
    Case("subscribe-unknown-topic", {"subscribe": "views,orders"}, error="subscribed topic 'orders' does not exist"),
    Case("pattern-matches-whole-names", {"subscribePattern": "view"}, []),
    Case("pattern-alternatives", {"subscribePattern": "v.*|wob.*"}, VIEWS + [("wobble", 0, 0, 6)]),
    Case("pattern-all-skips-internal-and-empty", {"subscribePattern": ".*"},
         CLICKS + TRIMMED + VIEWS + [("wobble", 0, 0, 6)]),
    Case("pattern-internal-topics-excluded", {"subscribePattern": "__.*"}, []),
    Case("pattern-internal-topics-included", {"subscribePattern": "__.*", "includeInternalTopics": "true"},
         [("__audit", 0, 0, 2)]),
    Case("pattern-matching-nothing", {"subscribePattern": "orders.*"}, []),
    Case("assign-partitions", {"assign": js({"views": [0], "clicks": [2]})}, [("clicks", 2, 0, 4), ("views", 0, 0, 6)]),
    Case("assign-unknown-topic", {"assign": js({"orders": [0]})}, error="assigned topic 'orders' does not exist"),
    Case("assign-unknown-partition", {"assign": js({"views": [2]})},
         error="assigned partition views-2 has no log directory"),
    Case("no-subscription", {"startingOffsets": "earliest"},
         error="one of the options subscribe, subscribePattern or assign must be given"),
    Case("two-subscriptions", {"subscribe": "views", "subscribePattern": "v.*"}, error="exclude each other"),
    # --------------------------------------------------------------------------------------------- offsets
    Case("earliest-is-the-log-start-latest-the-end",
         {"subscribe": "trimmed", "startingOffsets": "earliest", "endingOffsets": "latest"}, TRIMMED),
    Case("starting-latest-is-streaming-only", {"subscribe": "views", "startingOffsets": "latest"},
         error="streaming queries only"),
    Case("ending-earliest-is-refused", {"subscribe": "views", "endingOffsets": "earliest"}, error="not allowed"),
    Case("json-offsets-with-minus-2-and-minus-1",
         {"subscribe": "views", "startingOffsets": js({"views": {"0": 2, "1": -2}}),
          "endingOffsets": js({"views": {"0": -1, "1": 4}})}, [("views", 0, 2, 6), ("views", 1, 0, 4)]),
    Case("json-minus-2-is-the-log-start-offset",
         {"assign": js({"trimmed": [0]}), "startingOffsets": js({"trimmed": {"0": -2}}),
          "endingOffsets": js({"trimmed": {"0": 12}})}, [("trimmed", 0, 5, 12)]),
    Case("json-starting-minus-1-is-streaming-only",
         {"subscribe": "views", "startingOffsets": js({"views": {"0": -1, "1": 0}})}, error="streaming queries only"),
    Case("json-ending-minus-2-is-refused",
         {"subscribe": "views", "endingOffsets": js({"views": {"0": -2, "1": -1}})}, error="not allowed"),
    Case("json-must-name-every-partition", {"subscribe": "views", "startingOffsets": js({"views": {"0": 1}})},
         error="must name exactly the assigned partitions"),
    Case("json-empty-range-is-dropped",
         {"subscribe": "views", "startingOffsets": js({"views": {"0": 3, "1": 0}}),
          "endingOffsets": js({"views": {"0": 3, "1": 2}})}, [("views", 1, 0, 2)]),
    Case("json-ending-before-starting",
         {"assign": js({"views": [0]}), "startingOffsets": js({"views": {"0": 5}}),
          "endingOffsets": js({"views": {"0": 3}})}, error="startingOffsets 5 is after endingOffsets 3"),
    # ---------------------------------------------------------------------------------------- data loss
    Case("deleted-offset-fails", {"subscribe": "trimmed", "startingOffsets": js({"trimmed": {"0": 4}})},
         error="offsets 4..4 were deleted"),
    Case("deleted-offsets-skipped-without-failOnDataLoss",
         {"subscribe": "trimmed", "startingOffsets": js({"trimmed": {"0": 2}}), "failOnDataLoss": "false"}, TRIMMED),
    Case("end-past-the-log-fails",
         {"subscribe": "trimmed", "startingOffsets": js({"trimmed": {"0": -2}}),
          "endingOffsets": js({"trimmed": {"0": 30}})}, error="log ends at 20"),
    Case("end-past-the-log-clamped-without-failOnDataLoss",
         {"subscribe": "trimmed", "startingOffsets": js({"trimmed": {"0": 8}}),
          "endingOffsets": js({"trimmed": {"0": 30}}), "failOnDataLoss": "false"}, [("trimmed", 0, 8, 20)]),
    Case("start-past-the-end-fails", {"subscribe": "trimmed", "startingOffsets": js({"trimmed": {"0": 25}})},
         error="start offset 25 is past the end 20"),
    Case("start-past-the-end-reads-nothing-without-failOnDataLoss",
         {"subscribe": "trimmed", "startingOffsets": js({"trimmed": {"0": 25}}), "failOnDataLoss": "false"}, []),
    # --------------------------------------------------------------------------------------- timestamps
    Case("starting-timestamp-for-every-partition", {"subscribe": "clicks", "startingTimestamp": "1045"},
         [("clicks", 0, 5, 10), ("clicks", 1, 0, 10), ("clicks", 2, 0, 4)]),
    Case("ending-timestamp-for-every-partition", {"subscribe": "clicks", "endingTimestamp": "1700"},
         [("clicks", 0, 0, 10), ("clicks", 2, 0, 2)]),  # clicks-1 ends at 0; clicks-0 has none that late: latest
    Case("starting-offsets-by-timestamp",
         {"subscribe": "views", "startingOffsetsByTimestamp": js({"views": {"0": 250, "1": 250}})},
         [("views", 0, 2, 6), ("views", 1, 1, 6)]),
    Case("ending-offsets-by-timestamp-one-past-every-record",
         {"subscribe": "views", "endingOffsetsByTimestamp": js({"views": {"0": 350, "1": 9999}})},
         [("views", 0, 0, 3), ("views", 1, 0, 6)]),
    Case("starting-timestamp-past-every-record-fails", {"subscribe": "views", "startingTimestamp": "9999"},
         error="has a timestamp at or after 9999"),
    Case("starting-timestamp-past-every-record-latest-strategy",
         {"subscribe": "views", "startingTimestamp": "9999", "startingOffsetsByTimestampStrategy": "latest"}, []),
    Case("by-timestamp-some-past-every-record-latest-strategy",
         {"subscribe": "clicks", "startingOffsetsByTimestamp": js({"clicks": {"0": 1095, "1": 2005, "2": 0}}),
          "startingOffsetsByTimestampStrategy": "latest"}, [("clicks", 1, 1, 10), ("clicks", 2, 0, 4)]),
    Case("by-timestamp-must-cover-every-partition",
         {"subscribe": "views", "startingOffsetsByTimestamp": js({"views": {"0": 100}})},
         error="must cover every assigned partition"),
    Case("timestamp-wins-over-by-timestamp-and-offsets",
         {"subscribe": "views", "startingTimestamp": "450",
          "startingOffsetsByTimestamp": js({"views": {"0": 0, "1": 0}}),
          "startingOffsets": js({"views": {"0": 1, "1": 1}}), "endingTimestamp": "550",
          "endingOffsets": js({"views": {"0": 1, "1": 1}})}, [("views", 0, 4, 5), ("views", 1, 3, 4)]),
    Case("by-timestamp-wins-over-offsets",
         {"subscribe": "views", "startingOffsetsByTimestamp": js({"views": {"0": 0, "1": 600}}),
          "startingOffsets": js({"views": {"0": 5, "1": 5}})}, [("views", 0, 0, 6), ("views", 1, 5, 6)]),
    Case("timestamp-in-a-later-segment", {"assign": js({"clicks": [0, 1]}), "startingTimestamp": "1081",
                                          "endingTimestamp": "2085"}, [("clicks", 0, 9, 10), ("clicks", 1, 0, 9)]),
    Case("by-timestamp-minus-2-and-minus-1-are-earliest-and-latest",
         {"subscribe": "views", "startingOffsetsByTimestamp": js({"views": {"0": -2, "1": -1}})}, [("views", 0, 0, 6)]),
    Case("ending-by-timestamp-minus-2-and-minus-1-are-earliest-and-latest",
         {"subscribe": "views", "endingOffsetsByTimestamp": js({"views": {"0": -2, "1": -1}})}, [("views", 1, 0, 6)]),
    Case("starting-timestamp-minus-3-is-the-largest-timestamp", {"subscribe": "wobble", "startingTimestamp": "-3"},
         [("wobble", 0, 5, 6)]),
    Case("timestamps-out-of-order", {"subscribe": "wobble", "startingTimestamp": "250", "endingTimestamp": "450"},
         [("wobble", 0, 1, 5)]),
    Case("timestamp-before-the-log-start", {"subscribe": "trimmed", "startingTimestamp": "0"}, TRIMMED),
    Case("ending-timestamp-before-the-log-start", {"subscribe": "trimmed", "endingTimestamp": "5002"}, []),
    # --------------------------------------------------------------------------------------- splitting
    Case("max-records-per-partition", {"subscribe": "views", "maxRecordsPerPartition": "4"},
         [("views", 0, 0, 3), ("views", 0, 3, 6), ("views", 1, 0, 3), ("views", 1, 3, 6)]),
    Case("max-records-per-partition-remainder-last", {"assign": js({"clicks": [0]}), "maxRecordsPerPartition": "4"},
         [("clicks", 0, 0, 3), ("clicks", 0, 3, 6), ("clicks", 0, 6, 10)]),
    Case("max-records-per-partition-from-the-log-start", {"subscribe": "trimmed", "maxRecordsPerPartition": "3"},
         [("trimmed", 0, s, s + 3) for s in range(5, 20, 3)]),
    Case("min-partitions-splits-proportionally", {"subscribe": "views", "minPartitions": "4"},
         [("views", 0, 0, 3), ("views", 0, 3, 6), ("views", 1, 0, 3), ("views", 1, 3, 6)]),
    Case("min-partitions-already-met", {"subscribe": "clicks", "minPartitions": "3"}, CLICKS),
    Case("max-records-then-min-partitions",
         {"subscribe": "trimmed", "maxRecordsPerPartition": "10", "minPartitions": "4"},
         [("trimmed", 0, 5, 8), ("trimmed", 0, 8, 12), ("trimmed", 0, 12, 16), ("trimmed", 0, 16, 20)]),
    Case("min-partitions-rounds-half-up", {"subscribe": "views", "minPartitions": "5"},
         [("views", p, s, s + 2) for p in (0, 1) for s in (0, 2, 4)]),
    Case("min-partitions-excludes-unsplit-ranges", {"subscribe": "trimmed,views", "minPartitions": "6"},
         [("trimmed", 0, 5, 8), ("trimmed", 0, 8, 12), ("trimmed", 0, 12, 16), ("trimmed", 0, 16, 20)] + VIEWS),
    Case("min-partitions-piece-sizes", {"assign": js({"views": [0]}), "minPartitions": "4"},
         [("views", 0, 0, 1), ("views", 0, 1, 2), ("views", 0, 2, 4), ("views", 0, 4, 6)]),
]
