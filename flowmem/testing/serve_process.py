"""A real ``flowmem serve`` in a subprocess on a free loopback port, for tests and benchmarks.

```python
with ServeProcess(["-c", str(config)], home=tmp_path / "home") as server:
    httpx.get(f"{server.url}/healthz")
```
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType


def free_port() -> int:
    """A TCP port nothing listens on right now (loopback)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ServeProcess:
    """``python -m flowmem serve ARGS --port P`` with ``FLOWMEM_HOME=home``; started on enter, SIGTERM on exit.

    Args:
        args: Arguments after ``serve`` (``-c FILE``, overrides).
        home: The store's directory (``FLOWMEM_HOME``).
        env: More environment variables (API keys).
        startup_timeout: Seconds to wait for ``/healthz``.
    """

    def __init__(
        self,
        args: Sequence[str] = (),
        *,
        home: Path,
        env: Mapping[str, str] | None = None,
        startup_timeout: float = 60.0,
        log: Path | None = None,
    ):
        self.args = list(args)
        self.home = home
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "FLOWMEM_HOME": str(home), **(env or {})}
        self.env.pop("FLOWMEM_CONFIG", None)
        self.startup_timeout = startup_timeout
        self.log = log or home.parent / f"serve-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> ServeProcess:
        self.home.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "flowmem", "serve", *self.args, "--port", str(self.port)]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(command, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"flowmem serve exited with {self.process.returncode}: {self.output()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=2):
                    return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(
            f"flowmem serve did not answer /healthz in {self.startup_timeout:g} s: {self.output()[-2000:]}"
        )

    def terminate(self) -> None:
        """Send SIGTERM (the server finishes in-flight requests, then stops)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def wait(self, timeout: float = 60.0) -> int:
        assert self.process is not None
        return self.process.wait(timeout)

    def stop(self, timeout: float = 60.0) -> int | None:
        """SIGTERM and wait; kill if it does not stop in ``timeout`` seconds."""
        if self.process is None:
            return None
        self.terminate()
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(10)

    def output(self) -> str:
        """What the server printed so far."""
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def __enter__(self) -> ServeProcess:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
