"""flowmem: memory flows for LLM assistants and agents.

Named ops read and write a shared context; YAML config strings wire them into flows
(``set_query_op >> (extract_time_op | (retrieve_memory_op >> semantic_rank_op)) >> fuse_rerank_op``);
dotted overrides tune any op per deployment.
"""

from loguru import logger

from flowmem._version import __version__
from flowmem.app import App
from flowmem.backend import Backend, BackendParams, register_backend
from flowmem.context import OpContext
from flowmem.errors import (
    BackendUnavailableError,
    ConfigError,
    ContextKeyError,
    FlowmemError,
    FlowSyntaxError,
    FlowValidationError,
    InputError,
    OpExecutionError,
    OpTimeoutError,
    PluginError,
    Problem,
    RegistryError,
)
from flowmem.inputs import define_input
from flowmem.op import OPS, Op, OpParams, register_op
from flowmem.response import Response

# A library stays quiet unless its user asks; the CLI enables logging.
logger.disable("flowmem")

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
