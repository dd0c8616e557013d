"""Tooling shared by the tests, the reliability stack and the benchmarks; no app depends on it."""
