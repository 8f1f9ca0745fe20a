"""The ``openai_compatible`` LLM: any server speaking OpenAI's ``/v1/chat/completions``.

OpenAI, vLLM, llama.cpp's server, Ollama, … ``json_mode`` asks for a JSON object
(``response_format={"type": "json_object"}``); a server that rejects that parameter is asked
once more without it, and the backend remembers not to send it again (ops parse tolerantly
either way). Retries with backoff on connection errors, 429 and 5xx come from the ``openai``
package; ``timeout`` bounds each request.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from flowmem.core.backend import BackendParams, register_backend
from flowmem.core.tokens import check_tokenizer_name, tokenizer_for_model
from flowmem.llm.base import LLM, ChatMessage, ChatResult
from flowmem.llm.openai_client import API_KEY_VARIABLE, import_openai, make_client, server_errors


class OpenAIChatParams(BackendParams):
    base_url: str | None = Field(None, description="server URL ending in /v1 (None: api.openai.com)")
    api_key: str | None = Field(None, description="API key (None: $OPENAI_API_KEY; local servers take any text)")
    model: str = Field("gpt-4o-mini", description="the model name the server knows")
    temperature: float = Field(0.0, ge=0, le=2, description="sampling temperature (0: most deterministic)")
    max_tokens: int = Field(1024, ge=1, description="longest reply")
    timeout: float = Field(30.0, gt=0, description="seconds per request")
    max_retries: int = Field(2, ge=0, description="retries on connection errors, 429 and 5xx, with backoff")
    json_mode: bool = Field(True, description="ask for JSON objects when an op wants JSON (if the server supports it)")
    tokenizer: str | None = Field(
        None,
        description="tokenizer that counts this model's tokens (o200k_base, cl100k_base, estimate; "
        "None: by model name, see flowmem.core.tokens.tokenizer_for_model)",
    )

    @field_validator("tokenizer")
    @classmethod
    def _known_tokenizer(cls, value: str | None) -> str | None:
        return value if value is None else check_tokenizer_name(value)


@register_backend("llm", "openai_compatible")
class OpenAICompatibleLLM(LLM):
    """Chat completions from an OpenAI-compatible HTTP server."""

    Params = OpenAIChatParams
    params: OpenAIChatParams
    secret_variables = (API_KEY_VARIABLE,)

    def __init__(self, params: BackendParams | None = None, *, name: str = "default"):
        super().__init__(params, name=name)
        self._client: Any = None
        self._json_supported = self.params.json_mode

    def _get_client(self) -> Any:
        if self._client is None:
            p = self.params
            self._client = make_client("llm backend openai_compatible", p.base_url, p.api_key, p.timeout, p.max_retries)
        return self._client

    async def chat(
        self,
        messages: list[ChatMessage],
        *,
        json_mode: bool = False,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ChatResult:
        openai = import_openai("llm backend openai_compatible")
        request: dict[str, Any] = {
            "model": self.params.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "temperature": self.params.temperature if temperature is None else temperature,
            "max_tokens": self.params.max_tokens if max_tokens is None else max_tokens,
        }
        if json_mode and self._json_supported:
            request["response_format"] = {"type": "json_object"}
        with server_errors("LLM server", self.params.base_url, self.params.model, self.params.timeout):
            try:
                response = await self._get_client().chat.completions.create(**request)
            except openai.BadRequestError as exc:
                if "response_format" not in request:
                    raise
                # Perhaps the server does not do JSON mode: ask once more without it. Only when that
                # works was JSON mode the problem (a prompt too long fails both ways) — then stop asking.
                request.pop("response_format")
                try:
                    response = await self._get_client().chat.completions.create(**request)
                except openai.BadRequestError:
                    raise exc from None
                self._json_supported = False
        choice = response.choices[0] if response.choices else None
        usage = getattr(response, "usage", None)
        return ChatResult(
            text=(choice.message.content or "") if choice is not None else "",
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
            model=getattr(response, "model", "") or self.params.model,
            finish_reason=(choice.finish_reason or "") if choice is not None else "",
        )

    @property
    def tokenizer(self) -> str:
        return self.params.tokenizer or tokenizer_for_model(self.params.model)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
