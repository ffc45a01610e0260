"""Extractors: each reads one upstream operator source and emits task records (dicts valid under the schema)."""
