"""Worker processes of the local runner started before the pipeline is built (issue 19).

Beam's `FnApiRunner` starts its N worker processes when the first stage runs, after the driver has
built the pipeline: each then spends 1-3 s importing Beam's worker, TensorFlow (TFDV's statistics)
and this project, while the driver waits. Building the pipeline takes the driver 3-4 s on one core,
with the other cores idle. So the local runner starts its workers *warm* first: N processes that
import what every worker needs (`PRELOAD`, and TFDV when the job validates) while the driver builds
the pipeline, then wait on a Unix socket in a private directory.

When the runner then starts a worker (`python -m pipelines.framework.sdk_worker_main`, with the
control address and options in its environment), that process hands its environment and arguments
to a free warm process and waits for it: the warm process runs Beam's worker unchanged and sends
back its exit status, which the started process exits with. If the started process dies (the runner
kills it, the watchdog kills it), the warm one sees its socket close and ends too. No warm process
free (or none answers): the started process runs the worker itself, as before. PySpark's daemon and
Gunicorn's preloading do the same for the same reason.

Only the local runner's multi-process mode uses this; `REWRITE_MINE_WARM_WORKERS=0` turns it off.
"""
import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import typing

LOG = logging.getLogger("rewrite_mine")

#: Environment variable naming the directory of the warm workers' sockets (set while a run may start
#: workers; the started worker processes inherit it). "0" disables warm workers.
ENV = "REWRITE_MINE_WARM_WORKERS"
MODULE = "pipelines.framework.warm_workers"
#: What every worker imports before its first bundle: modules, or `module:function` to call.
PRELOAD = ("apache_beam.runners.worker.sdk_worker_main", "transforms", "transforms.common", "transforms.sinks",
           "miners.nlp.pos:import_spacy")
#: How long a started worker waits for a warm process to finish its imports and answer.
CLAIM_TIMEOUT_S = 300.0
#: How long starting the pool waits for each warm process to listen.
BIND_TIMEOUT_S = 30.0
_OK = b"ok\n"


def enabled() -> bool:
    return os.environ.get(ENV, "") != "0"


class Pool:
    """N warm worker processes, children of the driver; `close()` stops any that no run claimed."""

    def __init__(self, n: int, preload: typing.Sequence[str] = PRELOAD, env: typing.Optional[dict] = None):
        self.dir = tempfile.mkdtemp(prefix="rewrite-mine-warm-")
        self.procs = []
        for i in range(n):
            path = os.path.join(self.dir, f"w{i}.sock")
            self.procs.append(subprocess.Popen(
                [sys.executable, "-m", MODULE, "--serve", path, "--parent", str(os.getpid()),
                 "--preload", ",".join(preload)],
                env=dict(os.environ if env is None else env), stdin=subprocess.DEVNULL))
        # Each binds its socket first thing (~0.1 s), before its imports: wait for that, so a worker the
        # runner starts finds every warm process (and queues on it while it imports).
        deadline = time.time() + BIND_TIMEOUT_S
        while time.time() < deadline and not all(
                os.path.exists(os.path.join(self.dir, f"w{i}.sock")) or p.poll() is not None
                for i, p in enumerate(self.procs)):
            time.sleep(0.01)

    @contextlib.contextmanager
    def offered(self):
        """While this block runs, worker processes started by the runner find the pool."""
        saved = os.environ.get(ENV)
        os.environ[ENV] = self.dir
        try:
            yield self
        finally:
            if saved is None:
                os.environ.pop(ENV, None)
            else:
                os.environ[ENV] = saved

    def close(self, wait_s: float = 5.0):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        deadline = time.time() + wait_s
        for p in self.procs:
            try:
                p.wait(max(0.0, deadline - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


# ------------------------------------------------------------------ the started worker's side

def _claim_order(paths, worker_id):
    """Start at a place given by the worker's id, so N workers started at once try N different sockets."""
    digits = "".join(c for c in worker_id or "" if c.isdigit())
    start = int(digits) % len(paths) if digits and paths else 0
    return paths[start:] + paths[:start]


def hand_over(argv) -> typing.Optional[int]:
    """In a worker process the runner started: give the work to a warm process and return its exit
    status; None when no warm process took it (the caller then runs the worker itself)."""
    pool_dir = os.environ.get(ENV, "")
    if not pool_dir or pool_dir == "0" or not os.path.isdir(pool_dir):
        return None
    paths = sorted(os.path.join(pool_dir, f) for f in os.listdir(pool_dir) if f.endswith(".sock"))
    message = json.dumps({"env": dict(os.environ), "argv": list(argv), "cwd": os.getcwd()}).encode("utf-8")
    for path in _claim_order(paths, os.environ.get("WORKER_ID")):
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.settimeout(CLAIM_TIMEOUT_S)  # a full backlog or a hung warm process: give up, never hang
        try:
            conn.connect(path)
            conn.sendall(len(message).to_bytes(8, "big") + message)
            if _recv_exactly(conn, len(_OK)) != _OK:  # taken by another worker, or it died
                conn.close()
                continue
        except OSError:
            conn.close()
            continue
        conn.settimeout(None)
        # Claimed: from here on this process only mirrors the warm one.
        status = conn.recv(16)
        return int(status.decode("ascii").strip() or 1) if status else 1
    return None


def _recv_exactly(conn, n) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


# ------------------------------------------------------------------ the warm process's side

def _die_with_parent(parent: int):
    """A warm process ends when the driver (`parent`, passed by it: a driver gone before this process
    could ask would leave it another parent) ends, whatever the driver's end (also SIGKILL)."""

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)  # pylint: disable=protected-access
    threading.Thread(target=watch, name="warm-parent-watch", daemon=True).start()


def _preload(names):
    for name in names:
        if not name:
            continue
        module, _, function = name.partition(":")
        try:
            __import__(module)
            if function:
                getattr(sys.modules[module], function)()
        except BaseException:  # pylint: disable=broad-except  (the real worker will meet and report it)
            LOG.debug("warm worker: could not preload %s", name, exc_info=True)


def serve(path: str, preload: typing.Sequence[str], parent: int) -> int:
    """Listen first (a worker started early waits in the backlog), import, take one worker, run it."""
    _die_with_parent(parent)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)
    _preload(preload)
    while True:
        conn, _ = server.accept()
        try:
            conn.settimeout(30.0)
            size = int.from_bytes(_recv_exactly(conn, 8), "big")
            message = json.loads(_recv_exactly(conn, size).decode("utf-8"))
            conn.sendall(_OK)  # a worker that gave up waiting is gone: this fails and the next one is taken
            conn.settimeout(None)
        except (OSError, ValueError):
            conn.close()
            continue
        break
    server.close()  # workers still in the backlog get a closed connection and try another socket
    try:
        os.unlink(path)
    except OSError:
        pass
    os.environ.clear()
    os.environ.update(message["env"])
    os.chdir(message["cwd"])
    done = threading.Event()

    def watch_started_process():  # it died (killed by the runner or the watchdog): so does this one
        try:
            conn.recv(1)
        except OSError:
            pass
        if not done.is_set():
            os._exit(1)  # pylint: disable=protected-access
    threading.Thread(target=watch_started_process, name="warm-claim-watch", daemon=True).start()

    status = run_worker(message["argv"])
    done.set()
    for stream in (sys.stdout, sys.stderr):  # the worker's last words before the started process exits
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    try:
        conn.sendall(f"{status}\n".encode("ascii"))
    except OSError:
        pass
    return status


def run_worker(argv) -> int:
    """Run Beam's SDK worker; returns its exit status (0, or the status it exited with)."""
    from apache_beam.runners.worker import sdk_worker_main
    try:
        sdk_worker_main.main(list(argv))
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # pylint: disable=broad-except  (reported as Beam's worker would, then status 1)
        traceback.print_exc()
        return 1
    return 0


def main(argv=None) -> int:
    import argparse  # pylint: disable=import-outside-toplevel
    parser = argparse.ArgumentParser(description="a warm SDK worker process of the local runner (internal)")
    parser.add_argument("--serve", required=True, help="Unix socket path to wait on")
    parser.add_argument("--parent", type=int, default=0, help="the driver's pid (default: this parent)")
    parser.add_argument("--preload", default="", help="comma-separated modules to import first")
    args = parser.parse_args(argv)
    return serve(args.serve, args.preload.split(","), args.parent or os.getppid())


if __name__ == "__main__":
    from pipelines.framework.process import exit_now  # pylint: disable=import-outside-toplevel
    exit_now(main())
