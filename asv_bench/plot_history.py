#!/usr/bin/env python3
"""Plot kvlog's headline figures across commits from asv's stored results (`make bench-history`).

Reads ``asv_bench/.asv/results/<machine>/*.json`` (the benchmarks in ``benchmarks/headline.py``) for the last
N commits of the current branch, oldest first, and writes one PNG with a panel per figure: decode records/s,
CRC-32C GB/s, append MB/s, compaction MB/s. A commit without a result (not measured, or it failed) leaves a
gap instead of a made-up point.

    python asv_bench/plot_history.py --commits 5 --out docs/img/bench-history.png
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / ".asv" / "results"

FIGURES = [
    ("headline.TrackHeadline.track_decode_records_per_s", "decode v2 -> Arrow, CRC checked", 1e6, "M records/s"),
    ("headline.TrackHeadline.track_crc32c_gb_per_s", "CRC-32C, 1 MiB", 1.0, "GB/s"),
    ("headline.TrackHeadline.track_append_mb_per_s", "append pre-built batches (tmpfs)", 1.0, "MB/s"),
    ("headline.TrackHeadline.track_compaction_mb_per_s", "compaction, one cleaner pass (tmpfs)", 1.0, "MB/s"),
    ("headline.TrackHeadline.track_point_append_per_s", "append one 1-record batch (tmpfs)", 1e3, "k appends/s"),
    ("headline.TrackHeadline.track_point_read_per_s", "read(offset, 4 KiB), random (tmpfs)", 1e3, "k reads/s"),
    ("tiers.TrackAvx2Tier.track_decode_records_per_s", "AVX2 tier: decode v2 -> Arrow", 1e6, "M records/s"),
    ("tiers.TrackAvx2Tier.track_crc32c_gb_per_s", "AVX2 tier: CRC-32C, 1 MiB", 1.0, "GB/s"),
    ("tiers.TrackAvx2Tier.track_append_mb_per_s", "AVX2 tier: append pre-built batches", 1.0, "MB/s"),
    ("tiers.TrackAvx2Tier.track_compaction_mb_per_s", "AVX2 tier: compaction, one pass", 1.0, "MB/s"),
]


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, check=True, capture_output=True, text=True).stdout


def last_commits(n: int, rev: str = "HEAD") -> list[tuple[str, str]]:
    """(hash, subject) of the last n commits up to ``rev`` on its first-parent line, oldest first."""
    lines = git("log", "--first-parent", f"-n{n}", "--format=%H %s", rev).splitlines()
    return [(ln[:40], ln[41:]) for ln in reversed(lines)]


def load_results(machine: str | None) -> tuple[str, dict[str, dict[str, float]]]:
    """{commit hash: {benchmark name: value}} for one machine's results."""
    machines = sorted(p for p in RESULTS.iterdir() if p.is_dir()) if RESULTS.is_dir() else []
    if machine:
        machines = [p for p in machines if p.name == machine]
    if not machines:
        raise SystemExit(f"no asv results under {RESULTS} (run `make bench-history` first)")
    if len(machines) > 1:
        raise SystemExit(f"results for several machines ({', '.join(p.name for p in machines)}): pass --machine")
    out: dict[str, dict[str, float]] = {}
    for path in sorted(machines[0].glob("*.json")):
        if path.name == "machine.json":
            continue
        data = json.loads(path.read_text())
        columns = data.get("result_columns", ["result"])
        col = columns.index("result")
        per = out.setdefault(data["commit_hash"], {})
        for name, row in data.get("results", {}).items():
            values = row[col] if isinstance(row, list) else None
            if isinstance(values, list) and values and isinstance(values[0], (int, float)):
                per[name] = float(values[0])
    return machines[0].name, out


def plot(commits: list[tuple[str, str]], results: dict[str, dict[str, float]], machine: str,
         out: pathlib.Path) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [h[:7] for h, _ in commits]
    xs = list(range(len(commits)))
    rows = (len(FIGURES) + 1) // 2
    fig, axes = plt.subplots(rows, 2, figsize=(11, 3.5 * rows), sharex=True)
    points = 0
    for ax, (name, title, scale, unit) in zip(axes.flat, FIGURES):
        ys = [results.get(h, {}).get(name) for h, _ in commits]
        ys_scaled = [y / scale if y is not None else float("nan") for y in ys]
        points += sum(y is not None for y in ys)
        ax.plot(xs, ys_scaled, marker="o", color="#1f5f8b")
        ax.set_title(title, fontsize=10)
        ax.set_ylabel(unit)
        top = max((y for y in ys_scaled if y == y), default=1.0)
        ax.set_ylim(0, top * 1.18)  # room for the value labels
        ax.grid(True, alpha=0.3)
        for x, y in zip(xs, ys_scaled):
            if y == y:  # not NaN
                ax.annotate(f"{y:.3g}" if y < 100 else f"{y:,.0f}", (x, y), textcoords="offset points", xytext=(0, 6), ha="center",
                            fontsize=7)
    for ax in axes[-1]:
        ax.set_xticks(xs)
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.set_xlabel("commit (oldest -> newest)")
    fig.suptitle(f"kvlog headline benchmarks, {len(commits)} commits of main (asv --quick, machine '{machine}')",
                 fontsize=11)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    return points


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, default=5, help="how many of the latest commits (default 5)")
    ap.add_argument("--machine", help="asv machine name (default: the only one with results)")
    ap.add_argument("--out", type=pathlib.Path, default=REPO / "docs" / "img" / "bench-history.png")
    ap.add_argument("--rev", default="HEAD", help="the newest commit to plot (default HEAD)")
    ap.add_argument("--only-measured", action="store_true",
                    help="plot only the commits (among the last --commits) that have results, without gaps")
    args = ap.parse_args(argv)
    commits = last_commits(args.commits, args.rev)
    machine, results = load_results(args.machine)
    if args.only_measured:
        commits = [c for c in commits if any(name in results.get(c[0], {}) for name, *_ in FIGURES)]
    points = plot(commits, results, machine, args.out)
    measured = sum(1 for h, _ in commits if any(name in results.get(h, {}) for name, *_ in FIGURES))
    print(f"wrote {args.out}: {measured} of {len(commits)} commits measured, {points} points")
    for h, subject in commits:
        vals = results.get(h, {})
        row = "  ".join(f"{vals[n] / s:8.3g}" if n in vals else "       -" for n, _, s, _ in FIGURES)
        print(f"  {h[:7]}  {row}  {subject[:60]}")
    return 0 if points else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
