"""The benchmarks of docs/performance.md. `make bench` runs them all (bench/run.py) and writes docs/performance.md."""
