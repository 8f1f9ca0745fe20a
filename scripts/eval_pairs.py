"""Old → new pairs through the default write path: is the older statement expired by the newer one?

Each line of a file is ``older || newer``; the two are said a week apart by one user, through ``personal_summary`` on
the memory store, and the older counts as expired when no valid memory from its message alone still starts with its
words. Prints each pair's outcome and, per file, how many of its pairs expired the older statement (for a ``keep-``
file, every one that did is a wrong expiry).

Usage: python scripts/eval_pairs.py FILE [FILE ...]
"""

from __future__ import annotations

import sys
from datetime import datetime, timedelta
from pathlib import Path

from flowmem import App
from flowmem.schema.memory import Message

SAID = datetime(2025, 1, 6, 10)


def expired(app: App, workspace: str, old: str, new: str) -> bool:
    messages = [
        Message(message_id=f"{workspace}-a", role="user", name="u", content=old, time_created=SAID),
        Message(message_id=f"{workspace}-b", role="user", name="u", content=new, time_created=SAID + timedelta(days=7)),
    ]
    app.run_coroutine(app.memories.add(messages, user_id="u", workspace_id=workspace, flow="personal_summary"))
    page = app.run_coroutine(app.memories.list(workspace_id=workspace, user_id="u", limit=None))
    olds = [
        m
        for m in page.memories
        if f"{workspace}-a" in m.source and m.status == "valid" and f"{workspace}-b" not in m.source
    ]
    return not any(old[:25] in m.content for m in olds)


def main(paths: list[str]) -> int:
    if not paths:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    with App(overrides=["vector_store.default.backend=memory"]) as app:
        for number, path in enumerate(paths):
            lines = [line for line in Path(path).read_text(encoding="utf-8").splitlines() if "||" in line]
            count = 0
            for index, line in enumerate(lines):
                old, new = (part.strip() for part in line.split("||", 1))
                done = expired(app, f"f{number}-p{index}", old, new)
                count += done
                print(f"{'expired' if done else 'kept   '}  {old[:50]} || {new[:60]}")
            print(f"{path}: {count}/{len(lines)} expired the older statement\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
