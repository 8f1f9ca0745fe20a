"""Habits from mem0 that flowmem accepts: ``forget(user_id=...)`` in the default workspace, ``hit.id``."""

from __future__ import annotations

import pytest

from flowmem.app import App
from flowmem.core.errors import InputError

CONFIG = {"embedding_model": {"default": {"backend": "hash"}}, "vector_store": {"default": {"backend": "memory"}}}


def test_forget_a_user_defaults_the_workspace_like_every_other_call() -> None:
    with App(CONFIG) as app:
        memories = app.memories.sync
        memories.add(text="I keep bees on my balcony", user_id="priya")
        memories.add(text="I play the cello", user_id="omar")
        done = memories.forget(user_id="priya")
        assert (done.workspace_id, done.user_id, done.memories) == ("default", "priya", 1)
        assert memories.list(user_id="priya").total == 0
        assert memories.list(user_id="omar").total == 1


def test_forget_with_neither_user_nor_workspace_is_refused_not_a_wiped_workspace() -> None:
    with App(CONFIG) as app:
        app.memories.sync.add(text="I play the cello", user_id="omar")
        with pytest.raises(InputError, match="user_id: is needed to forget one user"):
            app.memories.sync.forget()
        assert app.memories.sync.list(user_id="omar").total == 1


def test_a_hit_has_an_id() -> None:
    with App(CONFIG) as app:
        added = app.memories.sync.add(text="I keep bees on my balcony", user_id="priya")
        hit = app.memories.sync.search("what do I keep?", user_id="priya").memories[0]
        assert hit.id == hit.memory_id == added.memory_ids[0]
        assert "id" not in hit.to_record()  # an alias, never stored twice
