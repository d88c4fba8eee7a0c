"""Run the fuzz targets under atheris + libFuzzer against the ASan/UBSan build.

    python -m fuzz.run [--seconds N] [--build DIR] [TARGET ...]   # driver: every target in turn
    python -m fuzz.run --worker TARGET [libFuzzer args...]        # one libFuzzer process (used by the driver)

The driver writes the seed corpus (``fuzz/seeds.py``) under ``build/fuzz/seeds/<target>``, keeps the
growing corpus in ``build/fuzz/corpus/<target>``, starts one worker per target with atheris's ASan
runtime preloaded and the sanitized package first on ``sys.path``, and prints executions, coverage and
the outcome per target (also written to ``build/fuzz/summary.json``). A finding leaves its input in
``build/fuzz/artifacts/`` and makes the driver exit 1; minimised reproducers belong in
``tests/fuzz_regressions/``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "fuzz"


def worker(target: str, args: list[str]) -> None:
    import atheris

    with atheris.instrument_imports(include=["kvlog", "fuzz"]):
        from fuzz import targets
    import kvlog._core.records

    native = kvlog._core.records.__file__
    if os.environ.get("KVLOG_FUZZ_REQUIRE_ASAN") == "1" and "/asan/" not in native:
        raise SystemExit(f"refusing to fuzz an uninstrumented build: {native}")
    print(f"kvlog from {kvlog._core.records.__file__}", file=sys.stderr, flush=True)
    fn = targets.TARGETS[target]

    def one(data: bytes) -> None:
        fn(data)

    atheris.Setup([sys.argv[0], *args], one)
    atheris.Fuzz()


_DONE = re.compile(r"Done (\d+) runs in (\d+) second")
_COV = re.compile(r"#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)")
_FINDING = re.compile(r"ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|"
                      r"runtime error:|Uncaught Python exception|== ERROR", re.MULTILINE)


def _env(build: Path) -> dict[str, str]:
    import atheris

    env = dict(os.environ)
    env["LD_PRELOAD"] = os.path.join(atheris.path(), "asan_with_fuzzer.so")
    env["ASAN_OPTIONS"] = "detect_leaks=0:allocator_may_return_null=0:handle_segv=1:symbolize=1"
    env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    env["PYTHONMALLOC"] = "malloc"  # every Python object gets its own ASan-guarded allocation
    env["PYTHONPATH"] = os.pathsep.join([str(build), str(ROOT)])
    env["KVLOG_FUZZ_REQUIRE_ASAN"] = "1"
    return env


def drive(names: list[str], seconds: int, build: Path, jobs_log: Path | None = None) -> int:
    from fuzz import seeds as seedmod
    from fuzz.targets import TARGETS

    names = names or list(TARGETS)
    unknown = [n for n in names if n not in TARGETS]
    if unknown:
        raise SystemExit(f"unknown targets {unknown}; choose from {list(TARGETS)}")
    seed_counts = seedmod.write(str(WORK / "seeds"))
    (WORK / "artifacts").mkdir(parents=True, exist_ok=True)
    (WORK / "logs").mkdir(parents=True, exist_ok=True)
    env = _env(build)
    summary: dict[str, dict[str, object]] = {}
    failed = False
    print(f"{'target':<18}{'executions':>12}{'exec/s':>9}{'cov':>7}{'corpus':>8}  outcome", flush=True)
    for name in names:
        corpus = WORK / "corpus" / name
        corpus.mkdir(parents=True, exist_ok=True)
        log = WORK / "logs" / f"{name}.log"
        cmd = [sys.executable, "-m", "fuzz.run", "--worker", name, str(corpus), str(WORK / "seeds" / name),
               f"-max_total_time={seconds}", "-timeout=60", "-rss_limit_mb=4096", "-max_len=65536",
               "-print_final_stats=1", f"-artifact_prefix={WORK / 'artifacts'}/{name}-"]
        start = time.monotonic()
        with open(log, "wb") as out:
            rc = subprocess.call(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                 timeout=seconds + 600)
        elapsed = time.monotonic() - start
        text = log.read_text(errors="replace")
        done = _DONE.search(text)
        runs = int(done.group(1)) if done else 0
        stat = re.search(r"stat::number_of_executed_units: (\d+)", text)
        runs = max(runs, int(stat.group(1))) if stat else runs
        cov = _COV.findall(text)
        finding = _FINDING.search(text)
        ok = rc == 0 and finding is None and runs > 0
        failed |= not ok
        outcome = "clean" if ok else f"FINDING (rc={rc}, see {log})"
        last = cov[-1] if cov else ("0", "0", "0", "0")
        summary[name] = {"executions": runs, "seconds": round(elapsed, 1), "coverage": int(last[1]),
                         "features": int(last[2]), "corpus": int(last[3]), "seeds": seed_counts.get(name, 0),
                         "clean": ok}
        print(f"{name:<18}{runs:>12,}{runs / max(elapsed, 1e-9):>9.0f}{int(last[1]):>7}{int(last[3]):>8}  {outcome}",
              flush=True)
    total = sum(int(s["executions"]) for s in summary.values())  # type: ignore[call-overload]
    print(f"{'total':<18}{total:>12,}", flush=True)
    (WORK / "summary.json").write_text(json.dumps({"seconds_per_target": seconds, "targets": summary}, indent=1))
    return 1 if failed else 0


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3:])
        return
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("targets", nargs="*")
    p.add_argument("--seconds", type=int, default=int(os.environ.get("FUZZ_SECONDS", "60")))
    p.add_argument("--build", type=Path, default=ROOT / "build" / "asan" / "src")
    a = p.parse_args()
    sys.exit(drive(a.targets, a.seconds, a.build))


if __name__ == "__main__":
    main()
