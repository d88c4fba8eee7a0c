"""Both batch planners, the Python source's ``_plan.plan_batch`` and the JVM scan's ``OffsetRangePlanner`` (through
``PlannerForTests``), against the shared table of tests/planning_cases.py."""

from __future__ import annotations

import pathlib
import warnings
from typing import Any

import pytest

from kvlog.errors import KvlogError
from kvlog.spark._plan import plan_batch
from planning_cases import CASES, Case, Range, build


class Refused(Exception):
    """A planner refused the read (the message is what a user sees)."""


@pytest.fixture(scope="module")
def data_dirs(tmp_path_factory) -> dict[str, pathlib.Path]:
    """Each dataset the cases name, written once for the module."""
    return {name: build(name, tmp_path_factory.mktemp(name)) for name in {c.data for c in CASES}}


def plan_python(options: dict[str, str]) -> list[Range]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # failOnDataLoss=false warns about what it skips
        try:
            _, ranges = plan_batch(options)
        except KvlogError as exc:
            raise Refused(str(exc)) from None
    return [(r.topic, r.partition, r.start, r.end) for r in ranges]


def plan_jvm(spark: Any, options: dict[str, str]) -> list[Range]:
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import IllegalArgumentException

    jmap = spark._jvm.java.util.HashMap()
    for k, v in options.items():
        jmap.put(k, v)
    try:
        text = spark._jvm.io.kvlog.spark.read.PlannerForTests.plan(jmap)
    except IllegalArgumentException as exc:  # pyspark converts this one Java exception
        raise Refused(str(exc).split("\n\nJVM stacktrace:")[0]) from None
    except Py4JJavaError as exc:
        if exc.java_exception.getClass().getName() != "java.lang.IllegalStateException":
            raise  # a crash, not a refusal
        raise Refused(str(exc.java_exception.getMessage())) from None
    out = []
    for line in text.splitlines():
        topic, partition, start, end = line.rsplit(" ", 3)
        out.append((topic, int(partition), int(start), int(end)))
    return out


def _params(engine: str) -> list:
    return [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(reason=c.deviates[engine], strict=True)]
                         if engine in c.deviates else []) for c in CASES]


def check(case: Case, plan) -> None:
    if case.error is not None:
        with pytest.raises(Refused) as refused:
            plan()
        assert case.error in str(refused.value)
    else:
        assert sorted(plan()) == sorted(case.ranges)


@pytest.mark.parametrize("case", _params("python"))
def test_python_planner(case, data_dirs):
    options = {**case.options, "path": str(data_dirs[case.data])}
    check(case, lambda: plan_python(options))


@pytest.mark.spark
@pytest.mark.parametrize("case", _params("jvm"))
def test_jvm_planner(case, data_dirs, jvm):
    options = {**case.options, "path": str(data_dirs[case.data])}
    check(case, lambda: plan_jvm(jvm, options))


def test_case_table_is_well_formed():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
    for c in CASES:
        assert set(c.deviates) <= {"python", "jvm"}, c.id
        assert not {"path", "paths"} & {k.lower() for k in c.options}, c.id  # the test supplies the directory
        assert c.ranges is None or all(s < e for _, _, s, e in c.ranges), c.id  # Spark drops empty ranges
