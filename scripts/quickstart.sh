#!/usr/bin/env bash
# The README's first command: set flowmem up on a fresh machine and run the main job on the
# embedded default (no server, no API key).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q -e .

echo "== flows =="
.venv/bin/flowmem flows
echo
echo "== flowmem run set_query -q 'what did I do last weekend?' --trace =="
.venv/bin/flowmem run set_query -q "what did I do last weekend?" --trace
