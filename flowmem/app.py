"""The Python API: load a config, run flows, use the memory service, close backends.

```python
from flowmem import App

with App(config="elasticsearch", overrides=["op.retrieve_memory_op.params.top_k=5"]) as app:
    response = app.run_sync("personal_retrieve", query="what did I do last weekend?", user_id="alice")

async with App() as app:
    response = await app.run("personal_retrieve", query="…", user_id="alice")
    await app.memories.add("I moved to Lisbon in May", user_id="alice")
```
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flowmem.flow.runtime import Runtime

if TYPE_CHECKING:
    from flowmem.memories import Memories


class App(Runtime):
    """A configured flowmem: flows, ops, the backends they share and the memory service on them.

    Takes the arguments of :class:`~flowmem.flow.runtime.Runtime` (``config``, ``overrides``, ``plugins``) and
    raises what it raises (``ConfigError``, ``PluginError``).
    """

    _memories: Memories | None = None

    @property
    def memories(self) -> Memories:
        """The memory service on the default store: ``await app.memories.add(...)``, ``.search``, ``.get``,
        ``.list``, ``.update``, ``.delete``, ``.history``, ``.forget``, ``.export``, ``.import_``;
        ``app.memories.sync`` has the same calls for code without an event loop."""
        from flowmem.memories import Memories  # on first use: `import flowmem` and the CLI's start stay light

        if self._memories is None:
            self._memories = Memories(self)
        return self._memories
