"""The records flowmem stores and passes between ops.

:mod:`.memory` (``Memory``, ``Message``), :mod:`.history`, :mod:`.actions`, :mod:`.timeparts` and
:mod:`.jsonl`; import from those modules. This package imports nothing, so the CLI can use its light
parts (:mod:`.kinds`) cheaply.
"""
