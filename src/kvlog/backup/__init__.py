"""Backups of a Kafka (or kvlog) data directory with exact offsets, and restores a broker loads.

``backup`` copies a live ``log.dirs`` incrementally into a local path or an object store; every run
publishes a manifest and a committed-offsets version, so the backup reads as a point-in-time data
directory. ``restore`` writes a broker's ``log.dirs`` from a backup, cut at a time if asked, with the
target cluster's topic ids; ``groups`` restores consumer group offsets as of the cut.
"""
