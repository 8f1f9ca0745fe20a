"""flowmem: memory flows for LLM assistants and agents.

Named ops read and write a shared context; YAML config strings wire them into flows
(``set_query_op >> (extract_time_op | (retrieve_memory_op >> semantic_rank_op)) >> fuse_rerank_op``);
dotted overrides tune any op per deployment.

The public names below are imported on first use (PEP 562), so ``import flowmem`` — and the
``flowmem`` command's start-up — pays only for what is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from loguru import logger

from flowmem.core.version import __version__

# A library stays quiet unless its user asks; the CLI enables logging.
logger.disable("flowmem")

# public name → the module that defines it
_EXPORTS: dict[str, str] = {
    "App": "flowmem.app",
    "Backend": "flowmem.core.backend",
    "BackendParams": "flowmem.core.backend",
    "register_backend": "flowmem.core.backend",
    "OpContext": "flowmem.flow.context",
    "define_input": "flowmem.flow.inputs",
    "OPS": "flowmem.flow.op",
    "Op": "flowmem.flow.op",
    "OpParams": "flowmem.flow.op",
    "register_op": "flowmem.flow.op",
    "Response": "flowmem.flow.response",
    **dict.fromkeys(
        (
            "BackendUnavailableError", "ConfigError", "ContextKeyError", "FlowmemError", "FlowSyntaxError",
            "FlowValidationError", "InputError", "NotFoundError", "OpExecutionError", "OpTimeoutError",
            "PluginError", "Problem", "RegistryError",
        ),
        "flowmem.core.errors",
    ),
}  # fmt: skip

__all__ = [
    "OPS",
    "App",
    "Backend",
    "BackendParams",
    "BackendUnavailableError",
    "ConfigError",
    "ContextKeyError",
    "FlowSyntaxError",
    "FlowValidationError",
    "FlowmemError",
    "InputError",
    "NotFoundError",
    "Op",
    "OpContext",
    "OpExecutionError",
    "OpParams",
    "OpTimeoutError",
    "PluginError",
    "Problem",
    "RegistryError",
    "Response",
    "__version__",
    "define_input",
    "register_backend",
    "register_op",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'flowmem' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from flowmem.app import App
    from flowmem.core.backend import Backend, BackendParams, register_backend
    from flowmem.core.errors import (
        BackendUnavailableError,
        ConfigError,
        ContextKeyError,
        FlowmemError,
        FlowSyntaxError,
        FlowValidationError,
        InputError,
        NotFoundError,
        OpExecutionError,
        OpTimeoutError,
        PluginError,
        Problem,
        RegistryError,
    )
    from flowmem.flow.context import OpContext
    from flowmem.flow.inputs import define_input
    from flowmem.flow.op import OPS, Op, OpParams, register_op
    from flowmem.flow.response import Response
