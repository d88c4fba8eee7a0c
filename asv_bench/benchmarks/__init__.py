"""kvlog asv benchmarks (see asv.conf.json). compare_peers.py beside this folder prints peer ratios."""
