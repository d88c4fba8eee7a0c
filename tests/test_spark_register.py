"""``kvlog.spark.register`` checks that the session's Python workers can import kvlog (issue 54, item 4): PySpark
starts them with ``PYSPARK_PYTHON`` (else ``python3`` from ``PATH``), not the driver's interpreter, so without the
check a newcomer's first read fails inside a task with ``ModuleNotFoundError``. Run in a child process: a session
of its own, without kvlog's jar, so that the Python source serves ``format("kvlog")``."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import venv

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark-register")]

CHILD = textwrap.dedent("""
    import os, sys
    from pyspark.sql import SparkSession
    import kvlog, kvlog.spark

    def session(python):
        os.environ["PYSPARK_PYTHON"] = python
        return (SparkSession.builder.master("local[1]").appName("kvlog-register")
                .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1").getOrCreate())

    spark = session(sys.argv[1])
    try:
        kvlog.spark.register(spark)
        print("REGISTERED without kvlog on the workers")
    except kvlog.ConfigError as exc:
        print("REFUSED", exc)
    print("UNCHECKED", kvlog.spark.register(spark, check_workers=False))
    spark.stop()
    spark = session(sys.executable)
    print("CHECKED", kvlog.spark.register(spark))
    spark.stop()
""")


def test_register_refuses_python_workers_without_kvlog_and_says_how(tmp_path):
    bare = tmp_path / "bare"
    venv.create(bare, with_pip=False)  # the driver's Python version, nothing installed: no kvlog
    worker = bare / "bin" / "python"
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    r = subprocess.run([sys.executable, "-c", CHILD, str(worker)], capture_output=True, text=True, env=env,
                       timeout=300, check=False)
    assert r.returncode == 0, r.stderr[-4000:]
    lines = {line.split(" ", 1)[0]: line for line in r.stdout.splitlines()}
    refused = lines.get("REFUSED", "")
    # (the bare interpreter lacks kvlog and its dependencies: the first missing module is named)
    assert "cannot import kvlog" in refused and "ModuleNotFoundError: No module named" in refused, r.stdout
    assert f"PYSPARK_PYTHON={sys.executable}" in refused and "spark.pyspark.python" in refused
    assert str(worker) in refused  # which interpreter the workers ran
    assert lines.get("UNCHECKED") == "UNCHECKED python"
    assert lines.get("CHECKED") == "CHECKED python"
