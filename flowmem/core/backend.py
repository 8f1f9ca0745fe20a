"""Backends: the LLMs, embedding models and vector stores ops use, by config name.

Each kind has an explicit registry of implementations. A config section (``llm``,
``embedding_model``, ``vector_store``) names entries (``default``, ``fast``, …), each choosing an
implementation (``backend``) and its ``params``. An :class:`~flowmem.app.App` creates an entry's
instance the first time an op asks for it and closes it with the app.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict

from flowmem.core.registry import Registry

BackendKind = Literal["llm", "embedding_model", "vector_store"]
BACKEND_KINDS: tuple[BackendKind, ...] = get_args(BackendKind)


class BackendParams(BaseModel):
    """Base of every backend's typed ``params``; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Backend:
    """Base class of every backend implementation.

    Subclasses set ``Params`` and implement their kind's interface. ``aclose`` releases
    connections, files and threads; it is called once, by the app that created the backend.
    """

    kind: ClassVar[BackendKind]
    backend_name: ClassVar[str] = ""
    Params: ClassVar[type[BackendParams]] = BackendParams
    # Environment variables the backend reads a secret from when its params leave it unset (an API key):
    # their values are redacted like the config's own secrets.
    secret_variables: ClassVar[tuple[str, ...]] = ()

    def __init__(self, params: BackendParams | None = None, *, name: str = "default"):
        self.params = params if params is not None else self.Params()
        self.name = name

    async def aclose(self) -> None:
        """Release resources. The default has nothing to release."""


BACKENDS: dict[BackendKind, Registry[type[Backend]]] = {
    "llm": Registry("llm backend"),
    "embedding_model": Registry("embedding_model backend"),
    "vector_store": Registry("vector_store backend"),
}


def register_backend(kind: BackendKind, name: str) -> Any:
    """Class decorator: register a backend implementation of ``kind`` under ``name``."""

    def decorator(cls: type[Backend]) -> type[Backend]:
        if not (isinstance(cls, type) and issubclass(cls, Backend)):
            raise TypeError(f"@register_backend needs a Backend subclass, got {cls!r}")
        cls.backend_name = name
        BACKENDS[kind].add(name, cls)
        return cls

    return decorator
