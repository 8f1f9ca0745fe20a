#!/usr/bin/env python3
"""Provision a throwaway single-node Elasticsearch for flowmem's tests.

The node is Elasticsearch's minimal *integration-test* distribution, fetched from Maven Central with
the Maven dependency plugin (no other download source is used), unpacked into a cache directory and
started on 127.0.0.1 with security off, a small heap and ``discovery.type: single-node``.

Subcommands::

    fetch   download and unpack the distribution (idempotent)
    start   fetch if needed, start a node in the background, print one line of JSON
    stop    stop the node started by ``start`` (idempotent)
    status  print the node's JSON if it is up, exit 1 otherwise

The JSON line is ``{"url": ..., "version": ..., "pid": ..., "home": ...}``; ``version`` is the one the
server reports itself. ``--port 0`` lets Elasticsearch pick a free port (read back from its ports file).

Environment: ``FLOWMEM_ES_VERSION`` (distribution version), ``FLOWMEM_ES_CACHE`` (cache root; default
``~/.cache/flowmem/elasticsearch``, or ``/var/cache/flowmem/elasticsearch`` for root because the
dedicated node user cannot traverse ``/root``), ``FLOWMEM_ES_USER`` (node user when run as root;
default ``flowmem-es``), ``ES_JAVA_HOME`` (JDK; default: newest suitable JDK under /usr/lib/jvm).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# The newest 9.x integ-test-zip that resolves on Maven Central here (9.0.0, 9.1.0, 9.2.0 do; 9.3.0 does not); test.sh
# also runs the Elasticsearch tests against 8.19.21, the newest 8.x one, with the 8.x Python client.
DEFAULT_VERSION = "9.2.0"
ARTIFACT = "org.elasticsearch.distribution.integ-test-zip:elasticsearch:{version}:zip"
MAVEN_COPY = ["mvn", "-q", "-B", "-Dstyle.color=never", "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy"]
DEFAULT_USER = "flowmem-es"
JVM_ROOT = Path("/usr/lib/jvm")
PID_FILE = "es.pid"
CONSOLE_LOG = "console.log"


class NodeError(RuntimeError):
    """A failure to fetch, start or reach the node, reported to the user without a traceback."""


def cache_root() -> Path:
    """Returns the cache root holding one ``<version>/`` directory per distribution version."""
    if env := os.environ.get("FLOWMEM_ES_CACHE"):
        return Path(env).expanduser().resolve()
    if os.geteuid() == 0:
        return Path("/var/cache/flowmem/elasticsearch")
    return Path("~/.cache/flowmem/elasticsearch").expanduser()


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Holds an exclusive ``flock`` on ``path`` so that concurrent invocations do not race."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def unpack(archive: Path, target: Path) -> None:
    """Extracts ``archive`` into ``target`` keeping the Unix permission bits stored in the zip."""
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            extracted = Path(zf.extract(info, target))
            mode = (info.external_attr >> 16) & 0o777
            os.chmod(extracted, mode or (0o755 if info.is_dir() else 0o644))


def fetch(version: str) -> Path:
    """Fetches and unpacks the distribution once.

    Args:
        version: Elasticsearch version, e.g. ``8.19.21``.

    Returns:
        The unpacked distribution directory (``ES_HOME``).

    Raises:
        NodeError: If Maven is missing or the artifact cannot be resolved.
    """
    vdir = cache_root() / version
    dist = vdir / f"elasticsearch-{version}"
    marker = dist / ".flowmem-unpacked"
    if marker.exists():
        return dist
    with file_lock(vdir / ".lock"):
        if marker.exists():
            return dist
        archive = vdir / f"elasticsearch-{version}.zip"
        if not archive.exists():
            if shutil.which("mvn") is None:
                raise NodeError("`mvn` not found: Maven is needed to fetch Elasticsearch from Maven Central")
            artifact = ARTIFACT.format(version=version)
            cmd = [*MAVEN_COPY, f"-Dartifact={artifact}", f"-DoutputDirectory={vdir}"]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode != 0 or not archive.exists():
                output = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
                errors = [line for line in output.splitlines() if line.startswith("[ERROR]") and len(line) > 8]
                raise NodeError(f"maven could not fetch {artifact}: {errors[0] if errors else output[-2000:]}")
        staging = vdir / ".unpacking"
        shutil.rmtree(staging, ignore_errors=True)
        unpack(archive, staging)
        shutil.rmtree(dist, ignore_errors=True)
        (staging / dist.name).rename(dist)
        staging.rmdir()
        marker.touch()
        archive.unlink()  # Maven's local repository keeps a copy
    return dist


def jdk_major(home: Path) -> int:
    """Returns the major Java version of the JDK at ``home`` (from its ``release`` file), or 0."""
    try:
        text = (home / "release").read_text()
    except OSError:
        return 0
    found = re.search(r'^JAVA_VERSION="(\d+)', text, re.MULTILINE)
    return int(found.group(1)) if found and (home / "bin" / "java").exists() else 0


def pick_jdk(version: str) -> Path:
    """Chooses the JDK: ``ES_JAVA_HOME`` if set, else the newest one under /usr/lib/jvm that is new enough.

    Raises:
        NodeError: If no suitable JDK is found.
    """
    if env := os.environ.get("ES_JAVA_HOME"):
        return Path(env)
    minimum = 21 if int(version.split(".")[0]) >= 9 else 17
    homes = {p.resolve() for p in JVM_ROOT.glob("*") if p.is_dir()} if JVM_ROOT.is_dir() else set()
    ranked = sorted(((jdk_major(h), str(h)) for h in homes), reverse=True)
    if not ranked or ranked[0][0] < minimum:
        raise NodeError(f"no JDK >= {minimum} under {JVM_ROOT}; set ES_JAVA_HOME")
    return Path(ranked[0][1])


def run_user() -> str | None:
    """Returns the user to run the node as when we are root (creating it if needed), else None.

    Elasticsearch refuses to run as root; a non-root caller simply runs it as itself.
    """
    if os.geteuid() != 0:
        return None
    name = os.environ.get("FLOWMEM_ES_USER", DEFAULT_USER)
    with contextlib.suppress(KeyError):
        return pwd.getpwnam(name).pw_name
    cmd = ["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", name]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    try:
        return pwd.getpwnam(name).pw_name  # also fine if a concurrent run created it
    except KeyError:
        raise NodeError(f"cannot create system user {name!r}: {done.stderr.strip()}") from None


def http_get(url: str, timeout: float = 5.0) -> dict[str, Any]:
    """GETs ``url`` and decodes the JSON body."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        body: dict[str, Any] = json.load(response)
    return body


def alive(pid: int) -> bool:
    """Tells whether process ``pid`` exists and has not yet become a zombie (or been reaped)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return re.search(r"^State:\s*[ZX]", status, re.MULTILINE) is None


def read_pid(home: Path) -> int | None:
    """Returns the pid in ``home``'s pid file if that process is alive and is Elasticsearch."""
    try:
        pid = int((home / PID_FILE).read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return None
    return pid if b"org.elasticsearch" in cmdline else None


def node_url(home: Path) -> str | None:
    """Returns the node's HTTP URL from the ports file Elasticsearch writes (``node.portsfile``)."""
    try:
        address = (home / "logs" / "http.ports").read_text().split()[0]
    except (OSError, IndexError):
        return None
    return f"http://127.0.0.1:{address.rsplit(':', 1)[1]}"


def describe(home: Path, wait: str = "1s") -> dict[str, Any] | None:
    """Returns the node's JSON description if the node in ``home`` is running and at least yellow."""
    pid, url = read_pid(home), node_url(home)
    if pid is None or url is None:
        return None
    try:
        health = http_get(f"{url}/_cluster/health?wait_for_status=yellow&timeout={wait}", timeout=30)
        nodes = http_get(f"{url}/_nodes/_local?filter_path=nodes.*.version")["nodes"]
    except (OSError, ValueError, KeyError):
        return None
    if health.get("status") not in ("yellow", "green"):
        return None
    return {"url": url, "version": next(iter(nodes.values()))["version"], "pid": pid, "home": str(home)}


def port_busy(port: int) -> bool:
    """Tells whether something already accepts connections on 127.0.0.1:``port``."""
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def write_config(dist: Path, home: Path, port: int) -> None:
    """Creates the node directory: a config copy with our ``elasticsearch.yml``, data, logs and tmp."""
    config = home / "config"
    if not config.exists():
        shutil.copytree(dist / "config", config)
    for sub in ("data", "logs", "tmp"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    settings = {
        "cluster.name": "flowmem-test",
        "node.name": "flowmem-node",
        "network.host": "127.0.0.1",
        "http.port": port,
        "transport.port": 0,
        "discovery.type": "single-node",
        "path.data": str(home / "data"),
        "path.logs": str(home / "logs"),
        "node.portsfile": True,
        "cluster.routing.allocation.disk.threshold_enabled": False,
    }
    if (dist / "modules" / "x-pack-security").is_dir():  # the setting only exists when the module does
        settings["xpack.security.enabled"] = False
    (config / "elasticsearch.yml").write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in settings.items()))
    (home / "logs" / "http.ports").unlink(missing_ok=True)


def log_tail(home: Path, lines: int = 60) -> str:
    """Returns the last lines of the console output and of the main server log."""
    parts = []
    for path in (home / CONSOLE_LOG, home / "logs" / "flowmem-test.log"):
        with contextlib.suppress(OSError):
            parts.append(f"--- {path} ---\n" + "\n".join(path.read_text(errors="replace").splitlines()[-lines:]))
    return "\n".join(parts)


def start(version: str, home: Path, port: int, heap: str, timeout: float) -> dict[str, Any]:
    """Starts a node (or finds the one already running in ``home``) and returns its JSON description.

    Raises:
        NodeError: If the node does not come up healthy within ``timeout`` seconds.
    """
    dist = fetch(version)
    user = run_user()
    home.mkdir(parents=True, exist_ok=True)
    with file_lock(home.parent / f".{home.name}.lock"):
        if (info := describe(home)) is not None:
            return info
        if read_pid(home) is not None:
            stop(home, timeout=30)
        if port and port_busy(port):
            raise NodeError(f"127.0.0.1:{port} is already in use by something this script did not start")
        write_config(dist, home, port)
        prefix: list[str] = []
        if user is not None:
            subprocess.run(["chown", "-R", f"{user}:", str(home)], check=True)
            prefix = ["runuser", "-u", user, "--"]
            probe = [*prefix, "test", "-x", str(dist / "bin" / "elasticsearch"), "-a", "-w", str(home / "data")]
            if subprocess.run(probe, check=False).returncode != 0:
                raise NodeError(f"user {user} cannot reach {dist} or {home}; set FLOWMEM_ES_CACHE / --home elsewhere")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ES_", "JAVA_"))}
        env.update(
            ES_JAVA_HOME=str(pick_jdk(version)),
            ES_PATH_CONF=str(home / "config"),
            ES_TMPDIR=str(home / "tmp"),
            ES_JAVA_OPTS=f"-Xms{heap} -Xmx{heap}",
        )
        cmd = [*prefix, str(dist / "bin" / "elasticsearch"), "-d", "-p", str(home / PID_FILE)]
        deadline = time.monotonic() + timeout
        with (home / CONSOLE_LOG).open("w") as console:
            # -d returns once the node has started (or failed); the server keeps running detached.
            proc = subprocess.Popen(
                cmd, cwd=home, env=env, stdin=subprocess.DEVNULL, stdout=console, stderr=console, start_new_session=True
            )
            try:
                code = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                code = -1
        while code == 0 and time.monotonic() < deadline:
            if (info := describe(home)) is not None:
                return info
            time.sleep(0.5)
        stop(home, timeout=15)
        raise NodeError(f"Elasticsearch did not become healthy (exit code {code}).\n{log_tail(home)}")


def stop(home: Path, timeout: float) -> bool:
    """Stops the node in ``home``: SIGTERM, then SIGKILL after ``timeout`` seconds.

    Returns:
        True if a node was running, False if there was nothing to stop.
    """
    pid = read_pid(home)
    if pid is None:
        (home / PID_FILE).unlink(missing_ok=True)
        return False
    for sig, grace in ((signal.SIGTERM, timeout), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        deadline = time.monotonic() + grace
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not alive(pid):
            break
    (home / PID_FILE).unlink(missing_ok=True)
    return True


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parses the command line; every subcommand accepts the same node-selection options."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--version",
        default=os.environ.get("FLOWMEM_ES_VERSION", DEFAULT_VERSION),
        help="Elasticsearch version (env FLOWMEM_ES_VERSION; default %(default)s)",
    )
    common.add_argument("--port", type=int, default=9200, help="HTTP port; 0 picks a free one (default %(default)s)")
    common.add_argument("--home", type=Path, help="node directory (default: <cache>/<version>/node-<port>)")
    common.add_argument("--timeout", type=float, default=120.0, help="start/stop timeout in seconds")
    common.add_argument("--heap", default="512m", help="JVM heap, -Xms and -Xmx (default %(default)s)")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("fetch", "start", "stop", "status"):
        sub.add_parser(name, parents=[common])
    args = parser.parse_args(argv)
    args.home = (args.home or cache_root() / args.version / f"node-{args.port}").expanduser().resolve()
    return args


def main(argv: list[str] | None = None) -> int:
    """Runs one subcommand and returns the process exit code."""
    args = parse_args(argv)
    try:
        if args.command == "fetch":
            print(fetch(args.version))
        elif args.command == "start":
            print(json.dumps(start(args.version, args.home, args.port, args.heap, args.timeout)))
        elif args.command == "stop":
            stopped = stop(args.home, args.timeout)
            print("stopped" if stopped else "not running", file=sys.stderr)
        else:
            info = describe(args.home)
            if info is None:
                print(f"no healthy node in {args.home}", file=sys.stderr)
                return 1
            print(json.dumps(info))
    except NodeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
