"""The catalog: build (merge, validate, write atomically) and query one SQLite file."""
