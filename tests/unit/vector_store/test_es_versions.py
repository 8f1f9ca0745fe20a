"""What the Elasticsearch store does about server and client versions, without a server.

The same behaviours against real 8.19 and 9.2 servers: tests/integration/test_elasticsearch_versions.py.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from flowmem.core.errors import BackendUnavailableError
from flowmem.vector_store.elasticsearch import query as es_query
from flowmem.vector_store.elasticsearch.store import ElasticsearchStore

# What an 8.19.21 server answered a 9.x client (elasticsearch 9.5.1), recorded on this machine.
REFUSED_API_VERSION = {
    "error": {
        "root_cause": [
            {
                "type": "media_type_header_exception",
                "reason": "Invalid media-type value on headers [Content-Type, Accept]",
            }
        ],
        "type": "media_type_header_exception",
        "reason": "Invalid media-type value on headers [Content-Type, Accept]",
        "caused_by": {
            "type": "status_exception",
            "reason": "Accept version must be either version 8 or 7, but found 9. "
            "Accept=application/vnd.elasticsearch+json; compatible-with=9",
        },
    },
    "status": 400,
}


class _Refuses(BaseHTTPRequestHandler):
    def _answer(self) -> None:
        body = json.dumps(REFUSED_API_VERSION).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-elastic-product", "Elasticsearch")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_HEAD = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def refusing_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refuses)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_server_refusing_the_clients_api_version_names_the_client_to_install(refusing_server: str) -> None:
    async def case() -> None:
        store = ElasticsearchStore(ElasticsearchStore.Params(hosts=refusing_server, index="x"))
        try:
            with pytest.raises(BackendUnavailableError) as caught:
                await store.count("ws")
        finally:
            await store.aclose()
        message = str(caught.value)
        assert "does not speak the API version of the installed Python client (elasticsearch " in message
        assert "pip install 'elasticsearch[async]>=8.19,<9'" in message
        assert "found 9" in message  # the server's own reason is kept
        assert caught.value.exit_code == 2

    asyncio.run(case())


def test_vectors_excluded_is_read_from_the_index_settings() -> None:
    # 8.19 and 9.1 do not know the setting: filter_path leaves nothing
    assert es_query.vectors_excluded({}) is False
    # an index created by 9.2+: the default
    default = {"i": {"defaults": {"index": {"mapping": {"exclude_source_vectors": "true"}}}}}
    assert es_query.vectors_excluded(default) is True
    # set explicitly (an index upgraded from 8.x keeps vectors in _source)
    explicit = {"i": {"settings": {"index": {"mapping": {"exclude_source_vectors": "false"}}}}}
    assert es_query.vectors_excluded(explicit) is False


def test_search_asks_for_excluded_vectors_only_when_it_wants_them_and_they_are_excluded() -> None:
    vector, derived, lexical = es_query.VECTOR_FIELD, es_query.DERIVED_FIELD, es_query.LEXICAL_FIELD
    slots = es_query.SLOTS_FIELD
    assert es_query.search_source(False, True) == {"excludes": [derived, slots, lexical, vector]}
    assert es_query.search_source(True, False) == {"excludes": [derived, slots, lexical]}
    assert es_query.search_source(True, True) == {"excludes": [derived, slots, lexical], "exclude_vectors": False}
