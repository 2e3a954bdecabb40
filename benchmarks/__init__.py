"""Measurements: each module writes one results file in assets/, and `benchmarks.report` renders them all; run
them as modules from the repository root (`python -m benchmarks.bench`)."""
