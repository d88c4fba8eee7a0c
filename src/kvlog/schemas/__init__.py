"""Typed topics: schemas from wherever the user keeps them, and the plans that decode record values with them.

A schema registry's wire format (magic byte, schema id, payload) is read against schemas found in the
registry's own ``_schemas`` topic (replayed offline from a data directory, a backup or a tiered copy), a
registry's REST API, a folder of schema files, or a mapping given in Python.
"""
