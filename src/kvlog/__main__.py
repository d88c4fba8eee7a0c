"""``python -m kvlog …``: the same command line as the ``kvlog`` console script."""

from kvlog.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
