"""The engines' daemons seen from here: taken ports, pid files, their REST APIs, logs, waiting and stopping.

Flink's and Spark's own scripts (jobmanager.sh, spark-daemon.sh) start the daemons in the background and
leave a pid file; what the clusters (flink.py, spark.py) and the job server (job_server.py) need beyond
that, polling a start with the log's last lines when it fails and stopping by pid, is here, once.
"""
import contextlib
import glob
import json
import os
import re
import socket
import subprocess
import time
import typing
import urllib.error
import urllib.request

from pipelines.framework.engines.paths import EngineError


LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0")


def _host_of(address: str) -> str:
    address = re.sub(r"^[a-z]+://", "", address.strip())
    if address.startswith("["):
        return address[:address.index("]") + 1]
    return address.rsplit(":", 1)[0] if ":" in address else address


def is_local(address: str) -> bool:
    host = _host_of(address)
    return host in LOCAL_HOSTS or host in (socket.gethostname(), socket.getfqdn())


def port_taken(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def _listening_inodes(port: int) -> typing.Optional[typing.Set[str]]:
    """The socket inodes listening on TCP `port` (IPv4 and IPv6), from /proc/net; None where there is none."""
    inodes, seen = set(), False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        seen = True
        for line in lines:
            fields = line.split()
            # local_address is ADDR:PORT in hex, st 0A is LISTEN, the inode is the 10th field
            if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return inodes if seen else None


def listens(pid: int, port: int) -> bool:
    """Whether process `pid` itself listens on TCP `port`: not only that the port is taken, which another
    process may have done (Beam's Spark job server logs nothing, and exits 0 when its port is taken).
    Without /proc (not Linux) the port being taken is all that can be told."""
    inodes = _listening_inodes(port)
    if inodes is None:
        return port_taken(port)
    if not inodes:
        return False
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
            if link.startswith("socket:[") and link[8:-1] in inodes:
                return True
    return False


def get_json(url: str, timeout_s: float = 5.0) -> typing.Any:
    with urllib.request.urlopen(url, timeout=timeout_s) as r:  # noqa: S310 - http(s) of the user's cluster
        return json.loads(r.read().decode("utf-8"))


def get_text(url: str, timeout_s: float = 5.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout_s) as r:  # noqa: S310
        return r.read().decode("utf-8", "replace")


def why(e: BaseException) -> str:
    """What went wrong reaching a daemon, in a few words ("Connection refused")."""
    if isinstance(e, urllib.error.URLError) and not isinstance(e, urllib.error.HTTPError):
        e = e.reason if isinstance(e.reason, BaseException) else e
    text = str(e) or type(e).__name__
    return text.replace("[Errno 111] ", "")


def tail(path: str, lines: int = 12) -> str:
    """The last `lines` lines of a daemon's log ("" when there is none)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-lines:]).rstrip()
    except OSError:
        return ""


def wait_until(condition: typing.Callable[[], typing.Any], timeout_s: float, poll_s: float = 0.5,
               failed: typing.Callable[[], typing.Optional[str]] = lambda: None):
    """Poll `condition` until it returns something true (returned) or `failed` names a failure (raised as
    EngineError) or `timeout_s` passes (None)."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            value = condition()
        except Exception:  # noqa: BLE001 - not up yet
            value = None
        if value:
            return value
        problem = failed()
        if problem:
            raise EngineError(problem)
        time.sleep(poll_s)
    return None


def run_script(cmd: typing.List[str], env: dict, what: str) -> None:
    """Run one of the engine's start scripts (they return once the daemon is in the background)."""
    proc = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=120, check=False)
    if proc.returncode != 0:
        raise EngineError(f"{what} failed (exit {proc.returncode}): "
                          f"{proc.stdout.decode('utf-8', 'replace').strip()[-800:]}")


def pids_in(pattern: str) -> typing.List[int]:
    """The live processes named by the pid files matching `pattern`."""
    out = []
    for path in glob.glob(pattern):
        try:
            with open(path, encoding="utf-8") as f:
                out += [int(x) for x in f.read().split() if x.isdigit()]
        except OSError:
            continue
    return [p for p in out if alive(p)]


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().split(b") ", 1)[1][:1] != b"Z"
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
            return True
        except OSError:
            return False


def kill(pids: typing.Iterable[int], grace_s: float = 10.0) -> None:
    """SIGTERM, then SIGKILL to those still alive after `grace_s`."""
    pids = [p for p in pids if alive(p)]
    for p in pids:
        with contextlib.suppress(OSError):
            os.kill(p, 15)
    deadline = time.time() + grace_s
    while time.time() < deadline and any(alive(p) for p in pids):
        time.sleep(0.2)
    for p in pids:
        if alive(p):
            with contextlib.suppress(OSError):
                os.kill(p, 9)
