"""The settings of the ``elasticsearch`` vector store (``vector_store.<name>.params``)."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from flowmem.core.backend import BackendParams

# Elasticsearch's own ceiling of `num_candidates` in one kNN search.
MAX_CANDIDATES = 10_000


class ElasticsearchStoreParams(BackendParams):
    """Settings of the ``elasticsearch`` vector store."""

    hosts: str | list[str] = Field(
        "http://127.0.0.1:9200",
        description="node URL(s) with scheme and port; a string may list several, comma-separated",
    )
    api_key: str | None = Field(None, description="API key (the base64 'id:key' form), sent as Authorization: ApiKey")
    username: str | None = Field(None, description="basic-auth user (with password)")
    password: str | None = Field(None, description="basic-auth password")
    ca_certs: str | None = Field(None, description="CA bundle file to verify the server's TLS certificate")
    verify_certs: bool = Field(True, description="verify TLS certificates (https hosts)")
    index: str = Field(
        "flowmem_memories",
        min_length=1,
        description="the index holding every workspace's memories; the write path's history and message ledger "
        "go to '<index>-history' and '<index>-messages'",
    )
    dims: int | None = Field(
        None, ge=1, le=4096, description="vector width: create the index on open and check an existing one against it"
    )
    similarity: Literal["dot_product", "cosine"] = Field(
        "dot_product", description="dense_vector similarity for a new index (vectors are unit length either way)"
    )
    index_options: dict[str, Any] = Field(
        default_factory=lambda: {"type": "hnsw", "m": 16, "ef_construction": 100},
        description="dense_vector index_options for a new index (always sent: servers default to quantised types); "
        "float hnsw gives exact scores, int8_hnsw needs a quarter of the memory (scores stay exact by a float rescore)",
    )
    num_candidates: int | None = Field(
        None, ge=1, le=MAX_CANDIDATES, description="kNN candidates per shard; None: max(100, 10 × top_k)"
    )
    refresh: Literal["wait_for", "true", "false"] = Field(
        "wait_for",
        description="after a write: return once searchable (writes of ≥ bulk_chunk_size force one refresh, "
        "smaller ones wait for the next scheduled refresh), always force a refresh, or return at once",
    )
    refresh_spacing: float = Field(
        0.2,
        ge=0,
        le=10,
        description="seconds at least between two forced refreshes ending writes: a lone write is refreshed at "
        "once, writes in a stream wait up to this long and share one refresh (a segment each costs the node CPU)",
    )
    request_timeout: float = Field(10.0, gt=0, description="seconds per request")
    max_retries: int = Field(
        2, ge=0, description="retries of a request on connection errors (and of 429-rejected docs)"
    )
    shards: int = Field(1, ge=1, description="number_of_shards of a new index")
    replicas: int = Field(0, ge=0, description="number_of_replicas of a new index")
    merge_after_import: int = Field(
        10_000,
        ge=0,
        description="after a bulk load (store import) that wrote at least this many memories, force-merge the "
        "memories index into one segment and wait for it (every segment is an HNSW graph each kNN search walks; a "
        "large load leaves tens); 0: never",
    )
    bulk_chunk_size: int = Field(1000, ge=1, description="documents per bulk request")
    bulk_concurrency: int = Field(2, ge=1, description="bulk requests of one write in flight at once")

    @field_validator("hosts", mode="after")
    @classmethod
    def _urls(cls, hosts: str | list[str]) -> list[str]:
        urls = [h.strip() for h in (hosts.split(",") if isinstance(hosts, str) else hosts) if h.strip()]
        if not urls:
            raise ValueError("give at least one host, e.g. http://127.0.0.1:9200")
        for url in urls:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"host {url!r} is not a URL like http://127.0.0.1:9200 or https://es.example:9200")
        return urls

    @field_validator("refresh", mode="before")
    @classmethod
    def _refresh_words(cls, value: Any) -> Any:
        # YAML reads `refresh: true` as a boolean.
        return str(value).lower() if isinstance(value, bool) else value

    @model_validator(mode="after")
    def _auth(self) -> ElasticsearchStoreParams:
        if (self.username is None) != (self.password is None):
            raise ValueError("basic auth needs both username and password")
        return self
