"""The statuses of the write refusals that forget's fences and the store's scope rule raise (HTTP and CLI alike)."""

from __future__ import annotations

import pytest

from flowmem.core.errors import FlowmemError, WriteConflictError
from flowmem.server.errors import describe
from flowmem.vector_store.erasure import Fence, refused
from flowmem.vector_store.rules import ScopeError, SessionConflictError


@pytest.mark.parametrize(
    ("error", "status", "kind"),
    [
        (refused(Fence("w", {"": 0, "alice": 0}), ["alice"]), 409, "conflict"),
        (SessionConflictError("chat session 's1' was written by another call"), 409, "conflict"),
        (ScopeError("a fence of workspace 'a' given to a write to 'b'"), 400, "invalid_input"),
    ],
)
def test_a_refused_write_is_a_client_error_not_a_500(error: FlowmemError, status: int, kind: str) -> None:
    code, body = describe(error)
    assert (code, body["error"]["type"]) == (status, kind)
    assert body["error"]["message"] == str(error)


def test_the_refusal_names_who_was_forgotten_and_that_nothing_was_stored() -> None:
    error = refused(Fence("w", {"": 0, "alice": 0}), ["alice"])
    assert isinstance(error, WriteConflictError) and error.exit_code == 2  # the CLI's user-mistake code
    assert (
        str(error)
        == "user 'alice' of workspace 'w' was forgotten while this write was under way; nothing of it was stored"
    )
    assert "workspace 'w' was forgotten" in str(refused(Fence("w", {"": 0}), [""]))
