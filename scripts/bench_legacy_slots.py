"""Cost of finding superseded facts in a large store of memories written before slots were stored.

One user holds ``--memories`` valid memories (default 10 000) written straight to a fresh ``local``
store without ``metadata.slots`` (as a store from before slots, or any path that does not read them,
leaves them); a tenth of them state a single-valued fact ("I live in …", "I work at …"). Then
``--messages`` texts are added one at a time with ``app.memories.add(text=…)`` (flow
``personal_add``: ``contra_repeat_op`` then the store write), every other one stating where the user
lives; the milliseconds per message are reported: the first message (which may read the legacy memories'
words) apart, then the median of the messages stating a fact and of the others.
Embeddings are the deterministic ``hash`` model, so the flow's own cost shows.

Usage: python scripts/bench_legacy_slots.py [--memories 10000] [--messages 20]

Measured on the shared 2-core machine, 10 000 legacy memories: before the write-back every message stating a fact
read all of them again (840 ms median); with the write-back the first one reads and writes back their slots once
(1.8 s), later ones 196-216 ms (reading the user's 10 000 memories from the store, not their words), others 3-4 ms.
Since the slot index (issue 24: the holders are found by ``MemoryFilter.slots``, not by reading the user's memories)
later ones 7.9 ms median (264 ms before it, in the same session at load 7), the first one 9.7 s (the one-time read).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from datetime import datetime, timedelta

from flowmem import App
from flowmem.schema.memory import Memory

FACTS = ("I live in Town {i}", "I work at Company {i}", "My dog is called Rex{i}")
PLAIN = "On day {i} I went for a walk by the river and saw {i} ducks near the bridge."


async def main(memories: int, messages: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as home:
        overrides = [f"vector_store.default.params.directory={home}", "embedding_model.default.backend=hash"]
        async with App(overrides=overrides) as app:
            start = datetime(2020, 1, 1)
            texts = [(FACTS[i % 3] if i % 10 == 0 else PLAIN).format(i=i) for i in range(memories)]
            vectors = await app.embedding_model().embed(texts, kind="document")
            legacy = [
                Memory(
                    memory_id=f"legacy-{i}",
                    workspace_id="bench",
                    target="alice",
                    memory_type="observation",
                    content=text,
                    created_at=start + timedelta(minutes=i),
                    updated_at=start + timedelta(minutes=i),
                    vector=vector,
                )
                for i, (text, vector) in enumerate(zip(texts, vectors, strict=True))
            ]
            for at in range(0, len(legacy), 1000):
                await app.vector_store().write("bench", legacy[at : at + 1000])
            times = []
            for n in range(messages):
                text = f"Note {n}: I bought {n} apples" if n % 2 else f"I live in New Town {n} now"
                started = time.perf_counter()
                await app.memories.add(text=text, user_id="alice", workspace_id="bench",
                                       timestamp=datetime(2024, 1, 1) + timedelta(hours=n))  # fmt: skip
                times.append((time.perf_counter() - started) * 1000)
            valid = await app.vector_store().count("bench")
    stating, plain = sorted(times[2::2]), sorted(times[1::2])  # after the first: a slot stated, or none
    return {
        "memories": memories,
        "stored": valid,
        "first_ms": round(times[0], 1),
        "stating_a_fact_median_ms": round(stating[len(stating) // 2], 1),
        "stating_a_fact_max_ms": round(stating[-1], 1),
        "other_median_ms": round(plain[len(plain) // 2], 1),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=20)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.memories, args.messages))))
