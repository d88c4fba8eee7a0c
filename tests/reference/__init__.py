"""Slow, obviously-correct pure-Python reference implementation of Kafka's
on-disk record formats (magic v0/v1/v2), written from /work/shared/KAFKA_FORMAT.md
and Kafka's source.  Used only as a test oracle; never imports kvlog."""
