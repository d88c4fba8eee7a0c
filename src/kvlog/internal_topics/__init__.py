"""Kafka's internal topics as data: consumer-group offsets, cluster metadata, transaction and share state."""
