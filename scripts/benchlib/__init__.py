"""scripts/bench's body, by part (scripts/bench.py is its entry point)."""
