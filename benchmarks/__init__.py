"""Measurements: each module writes one results file in assets/, and `benchmarks.report` renders them all.

Run them as modules from the repository root (`python -m benchmarks.bench`). They import `helpers` and
`tools`, never the other way round (the import-linter contract in pyproject.toml).
"""
