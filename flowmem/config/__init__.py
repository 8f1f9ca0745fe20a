"""Configuration: schema, layered loading, overrides, environment interpolation."""

from flowmem.config.loader import ResolvedConfig, load_config, presets
from flowmem.config.overrides import Override, parse_override
from flowmem.config.schema import BackendEntry, Config, FlowEntry, OpEntry

__all__ = [
    "BackendEntry",
    "Config",
    "FlowEntry",
    "OpEntry",
    "Override",
    "ResolvedConfig",
    "load_config",
    "parse_override",
    "presets",
]
