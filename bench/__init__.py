"""Benchmarks of issue 8. `make bench` runs them all (bench/run.py) and writes docs/performance.md."""
