"""Evaluating flows on standard benchmarks (LoCoMo), offline, with baselines in the same run."""
