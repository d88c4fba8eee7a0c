"""Fuzz harnesses for kvlog's decoders (atheris + libFuzzer, ASan/UBSan build): see targets.py and run.py."""
