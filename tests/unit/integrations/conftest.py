"""Every adapter test that takes ``make_app`` runs twice: on an ``App`` in this process, and on a
:class:`~flowmem.integrations.remote.RemoteApp` of a real ``flowmem serve`` subprocess on a loopback port
(:class:`~flowmem.testing.serve_process.ServeProcess`, as the integration tests run it) with an API key.

``make_app(overrides)`` opens one: in process, a new ``App`` (its own in-memory store); remote, a client of a server
started with the same overrides that no other open client uses, whose workspaces are forgotten when the client
closes — so each test starts from an empty store either way, as with a new ``App``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
import pytest

from flowmem import App
from flowmem.integrations.remote import RemoteApp
from flowmem.testing.serve_process import ServeProcess
from tests.unit.integrations import MakeApp

KEY = "adapters-remote-key-0123456789"
CONFIG = 'server:\n  api_keys:\n    - {name: adapters, key: "${FLOWMEM_ADAPTER_KEY}", workspaces: ["*"]}\n'
# The workspaces the adapter tests write in (forgotten on the server after each test's client closes).
WORKSPACES = ("default", "agents")


class ServerPool:
    """``flowmem serve`` processes by overrides, started on first need, each lent to one client at a time."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.free: dict[tuple[str, ...], list[ServeProcess]] = {}
        self.started: list[ServeProcess] = []

    def lend(self, overrides: Sequence[str]) -> RemoteApp:
        key = tuple(overrides)
        idle = self.free.setdefault(key, [])
        if idle:
            server = idle.pop()
        else:
            where = self.tmp / f"serve-{len(self.started)}"
            where.mkdir()
            (where / "serve.yaml").write_text(CONFIG, encoding="utf-8")
            server = ServeProcess(["-c", str(where / "serve.yaml"), *overrides], home=where / "home",
                                  env={"FLOWMEM_ADAPTER_KEY": KEY}).start()  # fmt: skip
            self.started.append(server)
        return LentRemote(server.url, api_key=KEY, pool=self, server=server, key=key)

    def give_back(self, server: ServeProcess, key: tuple[str, ...]) -> None:
        """Forget what the test wrote, then lend the server again."""
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {KEY}"}, timeout=60) as http:
            for workspace in WORKSPACES:
                http.delete(f"/v1/workspaces/{workspace}").raise_for_status()
        self.free[key].append(server)

    def stop(self) -> None:
        for server in self.started:
            server.stop()


class LentRemote(RemoteApp):
    """A ``RemoteApp`` that gives its server back to the pool when it is closed (sync or async)."""

    def __init__(self, url: str, *, api_key: str, pool: ServerPool, server: ServeProcess, key: tuple[str, ...]):
        super().__init__(url, api_key=api_key)
        self._lent: tuple[ServerPool, ServeProcess, tuple[str, ...]] | None = (pool, server, key)

    def _give_back(self) -> None:
        if self._lent is not None:
            pool, server, key = self._lent
            self._lent = None
            pool.give_back(server, key)

    def close(self) -> None:
        super().close()
        self._give_back()

    async def aclose(self) -> None:
        await super().aclose()
        self._give_back()


@pytest.fixture(scope="session")
def server_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerPool]:
    pool = ServerPool(tmp_path_factory.mktemp("adapters-remote"))
    try:
        yield pool
    finally:
        pool.stop()


@pytest.fixture(scope="session", params=["in-process", "remote"])
def make_app(request: pytest.FixtureRequest) -> MakeApp:
    """Open an ``App(overrides=...)``, or a ``RemoteApp`` of a ``flowmem serve`` run with those overrides."""
    if request.param == "in-process":
        return lambda overrides: App(overrides=list(overrides))
    pool: ServerPool = request.getfixturevalue("server_pool")
    return pool.lend
