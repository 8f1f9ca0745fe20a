"""The shape of a flowmem config: sections ``flow``, ``op``, ``llm``, ``embedding_model``, ``vector_store``
(each a mapping of named entries), ``limits`` and ``server`` (plain settings).

```yaml
flow:
  personal_retrieve:
    flow_content: set_query_op >> (extract_time_op | (retrieve_memory_op >> semantic_rank_op)) >> fuse_rerank_op
    description: Recall, rank and fuse memories for a query.
op:
  fuse_rerank_op:            # the name flows use; `backend` defaults to it
    params: {fuse_time_ratio: 2.0}
  recall_keywords_op:        # a second, differently tuned retrieve op
    backend: retrieve_memory_op
    params: {recall_key: keywords}
llm:
  default: {backend: openai_compatible, params: {model: "${FLOWMEM_LLM_MODEL:-qwen2.5}"}}
limits:
  message_max_chars: 50000
```
"""

from __future__ import annotations

import os
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

from flowmem.config.hosts import host_name, web_origin
from flowmem.core.backend import BackendKind

# One embedding call per core by default, but no more than this: each local engine holds its own buffers.
MAX_AUTO_EMBEDDER_CALLS = 4
# server.search_concurrency's default per core, and server.embedder_batch's: BENCHMARKS.md, issue 24 session 12.
SEARCHES_PER_CORE = 8
EMBEDDER_BATCH = 8


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FlowEntry(_Strict):
    """A named flow.

    Every configured flow is a flow of its own: checked, listed and runnable by name. Other flows may also
    include it by name in their expressions (expanded inline, :mod:`flowmem.flow.include`); there its
    ``inputs``, ``outputs`` and ``description`` play no part. A flow written to be included runs alone too,
    given the inputs it needs (``flowmem flows`` lists them); keys it reads that no standard input provides
    go under ``inputs``.
    """

    flow_content: str = Field(
        description="the flow expression: names of ops, or of other flows (expanded in place), joined by >> and |"
    )
    description: str = Field("", description="one line for `flowmem flows`")
    inputs: list[str] = Field(default_factory=list, description="inputs accepted beyond the standard ones")
    outputs: list[str | dict[str, str]] = Field(
        default_factory=list,
        description=(
            "context keys returned in the response's `outputs` (besides answer/memories), each under its own name or "
            "renamed by a one-entry mapping {name: key}"
        ),
    )

    @field_validator("outputs")
    @classmethod
    def _one_name_each(cls, value: list[str | dict[str, str]]) -> list[str | dict[str, str]]:
        names: list[str] = []
        for item in value:
            if isinstance(item, dict) and len(item) != 1:
                raise ValueError(f"an output renamed is a mapping of one entry, {{name: key}}; got {item}")
            names += [item] if isinstance(item, str) else list(item)
        doubled = sorted({n for n in names if names.count(n) > 1})
        if doubled:
            raise ValueError(f"output names must be unique; given twice: {', '.join(doubled)}")
        return value

    @property
    def output_keys(self) -> dict[str, str]:
        """Each output's name in the response → the context key it returns (the same, unless renamed).

        A rename keeps a response's field stable when the key behind it is another: ``personal_context`` returns
        ``read_message_op``'s ``recent_messages`` (``list[Message]``) as ``context_messages``, as it always has,
        while the catalogue's ``context_messages`` is ``context_assemble_op``'s ``{role, content}`` dicts.
        """
        pairs: dict[str, str] = {}
        for item in self.outputs:
            pairs.update({item: item} if isinstance(item, str) else item)
        return pairs


class OpEntry(_Strict):
    """Settings of one op name used in flows."""

    backend: str | None = Field(None, description="the registered op class (default: the entry's own name)")
    params: dict[str, Any] = Field(default_factory=dict, description="the op's typed params")
    llm: str = Field("default", description="which `llm` entry the op uses")
    embedding_model: str = Field("default", description="which `embedding_model` entry the op uses")
    vector_store: str = Field("default", description="which `vector_store` entry the op uses")
    timeout: float | None = Field(None, gt=0, description="seconds before the op is stopped (default: none)")


class BackendEntry(_Strict):
    """One named LLM, embedding model or vector store."""

    backend: str = Field(description="the implementation, e.g. `openai_compatible`")
    params: dict[str, Any] = Field(default_factory=dict, description="the implementation's typed params")


class Limits(_Strict):
    """How long the texts flowmem accepts may be (characters). Longer ones are refused, never cut.

    Refused, with exit code 2 at the CLI and an :class:`~flowmem.core.errors.InputError` in Python, naming
    the text and the setting, before anything is embedded or written. Why refuse rather than truncate
    or split: a memory layer stores what was said; cutting a message would store part of it as if it
    were all, and splitting would invent messages (and ids) the user never sent. A text this long is
    almost always a pasted document or a mistake, and its cost grows with its length (the embedded
    e5 model takes about a second per 1,000 characters on two cores), so the limits also keep every
    call within seconds. Raise them for your data, e.g. ``limits.message_max_chars=50000``.
    """

    query_max_chars: int = Field(4_000, ge=1, description="the longest query (`-q`, input `query`)")
    message_max_chars: int = Field(10_000, ge=1, description="the longest chat message content (input `messages`)")
    memory_max_chars: int = Field(10_000, ge=1, description="the longest memory content (`store import`, `ingest`)")


class ApiKey(_Strict):
    """One API key of ``flowmem serve``: the secret, the workspaces it may use, and whether it may write."""

    name: str = Field(description="who holds the key (shown in logs and errors instead of the key)")
    key: str = Field(min_length=16, description="the secret, read from the environment: key: ${FLOWMEM_KEY_ALICE}")
    workspaces: list[str] = Field(min_length=1, description='the workspaces it may use; ["*"] for every workspace')
    read_only: bool = Field(False, description="may only read (search, list, get, history)")


class Server(_Strict):
    """``flowmem serve`` and ``flowmem mcp``: who may call, and the limits every request meets.

    With no ``api_keys`` the server binds to loopback only (anyone on this machine may use every
    workspace); binding elsewhere needs keys. Keys are sent as ``Authorization: Bearer KEY`` (or
    ``X-API-Key: KEY``), never logged, and redacted from ``flowmem config show``.
    """

    host: str = Field("127.0.0.1", description="the address to bind (`--host`)")
    port: int = Field(8765, ge=0, le=65535, description="the port to bind (`--port`; 0 = any free port)")
    api_keys: list[ApiKey] = Field(default_factory=list, description="the keys callers send")
    max_body_bytes: int = Field(1_048_576, ge=1024, description="the largest request body accepted (413 beyond)")
    request_timeout: float = Field(30.0, gt=0, description="seconds before a request is answered 504")
    run_overrides: list[str] = Field(
        default_factory=list,
        description="op params a request to /v1/flows/{name}/run may override, e.g. "
        "fuse_rerank_op.fuse_time_ratio (op.param; op.* allows every param of that op)",
    )
    embedder_concurrency: int | None = Field(
        None,
        ge=1,
        description="embedding calls at once, each on its own thread; more requests queue (the cores are shared "
        "with searches). Unset: one per core, at most 4",
    )

    embedder_batch: int = Field(
        EMBEDDER_BATCH,
        ge=1,
        description="texts of the waiting embedding calls one model call takes at most, in order of arrival (a call "
        "of more texts is computed whole, alone): no search waits for one long computation of every query waiting "
        "while the other model call has one; smaller batches cost more CPU a text",
    )

    def embedding_calls(self) -> int:
        """How many embedding calls may run at once: ``embedder_concurrency``, or one per core (at most 4)."""
        return self.embedder_concurrency or min(os.cpu_count() or 1, MAX_AUTO_EMBEDDER_CALLS)

    search_concurrency: int | None = Field(
        None,
        ge=1,
        description="searches in the search flow at once (POST /v1/search, the MCP search_memories tool, the /ui "
        "search); more wait their turn in order of arrival, none is refused. Writes, chat turns and health checks "
        f"never wait for them. Unset: {SEARCHES_PER_CORE} per core (`flowmem serve --search-concurrency N`)",
    )

    def search_calls(self) -> int:
        """How many searches may run at once: ``search_concurrency``, or ``SEARCHES_PER_CORE`` per core."""
        return self.search_concurrency or SEARCHES_PER_CORE * (os.cpu_count() or 1)

    graceful_timeout: float = Field(30.0, gt=0, description="seconds to finish in-flight requests on SIGTERM")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names requests may be addressed to, besides the loopback names (localhost, 127.0.0.1, ::1) "
        "and the bound address; others are answered 421 on every path (a DNS-rebinding web page sends its own name). "
        'Names without port or scheme; ["*"]: any. Empty on a wildcard bind (0.0.0.0, ::): any, as keys guard it',
    )
    cors_origins: list[str] = Field(
        default_factory=list,
        description="web pages (scheme://host[:port]) that may call the API from a browser: CORS is answered for "
        "these only, and a request from another page's Origin (not on an allowed host) is answered 403",
    )
    header_timeout: float = Field(
        10.0, gt=0, description="seconds for a request's headers to arrive, from the connection's start (or the "
        "request's first byte on a kept-alive connection); then the connection is closed (408 if some arrived)",
    )  # fmt: skip
    idle_timeout: int = Field(5, ge=1, description="seconds a kept-alive connection may wait for its next request")
    body_timeout: float = Field(
        30.0, gt=0, description="seconds for a request's whole body to arrive, on every path (408 beyond)"
    )
    max_connections: int = Field(
        100, ge=1, description="open connections at once; a request on one beyond it is answered 503"
    )

    @field_validator("allowed_hosts")
    @classmethod
    def _host_names(cls, names: list[str]) -> list[str]:
        return [host_name(name) for name in names]

    @field_validator("cors_origins")
    @classmethod
    def _origins(cls, origins: list[str]) -> list[str]:
        return [web_origin(origin) for origin in origins]


class Tracing(_Strict):
    """Where ``flowmem serve`` sends the OpenTelemetry spans of its flow runs and ops (:mod:`flowmem.flow.telemetry`:
    names, timings, counts and scores; never a query, a memory's words or a secret). Needs the OpenTelemetry SDK
    (``pip install 'flowmem[otel]'``); without it a server configured to export refuses to start (exit 2).
    """

    exporter: Literal["none", "console", "otlp"] = Field(
        "none", description="none: no spans; console: printed as JSON on stdout; otlp: sent over OTLP/HTTP (protobuf)"
    )
    endpoint: str | None = Field(
        None,
        description="the OTLP/HTTP traces URL (e.g. http://127.0.0.1:4318/v1/traces); unset: the SDK's "
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318/v1/traces",
    )
    service_name: str = Field("flowmem", min_length=1, description="the spans' service.name resource attribute")


class Config(_Strict):
    """A whole resolved configuration."""

    flow: dict[str, FlowEntry] = Field(default_factory=dict)
    op: dict[str, OpEntry] = Field(default_factory=dict)
    llm: dict[str, BackendEntry] = Field(default_factory=dict)
    embedding_model: dict[str, BackendEntry] = Field(default_factory=dict)
    vector_store: dict[str, BackendEntry] = Field(default_factory=dict)
    limits: Limits = Field(default_factory=Limits)
    server: Server = Field(default_factory=Server)
    tracing: Tracing = Field(default_factory=Tracing)

    def backends(self, kind: BackendKind) -> dict[str, BackendEntry]:
        entries: dict[str, BackendEntry] = getattr(self, kind)
        return entries


SECTIONS: tuple[str, ...] = tuple(Config.model_fields)
BACKEND_SECTIONS: tuple[BackendKind, ...] = get_args(BackendKind)
# Flat settings, not named entries.
SETTINGS_SECTIONS: dict[str, type[BaseModel]] = {"limits": Limits, "server": Server, "tracing": Tracing}
ENTRY_MODELS: dict[str, type[BaseModel]] = {
    "flow": FlowEntry,
    "op": OpEntry,
    **{kind: BackendEntry for kind in BACKEND_SECTIONS},
}
