#!/usr/bin/env bash
# The README's first command: set flowmem up on a fresh machine and run the main job on the
# embedded default (local store, offline embeddings, no LLM: no server, no API key).
#
# It loads the bundled sample (memories of "Alice", January-June 2024) into workspace "demo" of the
# embedded store ($FLOWMEM_HOME, default ~/.local/share/flowmem) and asks, as of Wednesday
# 2024-06-12 20:00, "what did I do last weekend?" — once plainly, once with every score explained.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q -e .

FLOWMEM=.venv/bin/flowmem
ASK=(run personal_retrieve -q "what did I do last weekend?" -u alice -w demo --input timestamp=2024-06-12T20:00)

echo "== loading the sample memories into workspace 'demo'"
"$FLOWMEM" store import --sample -w demo
echo
echo "== flowmem ${ASK[*]}"
"$FLOWMEM" "${ASK[@]}"
echo
echo "== the same, with --explain (every factor, the op that produced it, and the near misses)"
"$FLOWMEM" "${ASK[@]}" --explain
