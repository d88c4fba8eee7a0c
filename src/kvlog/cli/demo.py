"""``kvlog demo``: a tour of kvlog on generated data."""

from __future__ import annotations

import argparse


def cmd_demo(args: argparse.Namespace) -> int:
    from kvlog import demo

    demo.main()
    return 0
