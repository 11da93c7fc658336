"""The local runner's worker process ends with its driver, also when Beam started it through a shell."""
import os
import signal
import subprocess
import sys
import textwrap
import time

from conftest import ROOT

# A stand-in driver: starts a worker process as Beam's SubprocessSdkWorker does (`/bin/sh -c`, shell=True),
# the worker watching its runner as pipelines/framework/workers/sdk_worker_main.py does, then waits.
DRIVER = textwrap.dedent("""
    import subprocess, sys, time
    worker = (sys.executable + " -c 'import sys, time; sys.path.insert(0, sys.argv[1]); "
              "from pipelines.framework.workers import sdk_worker_main as m; m._end_with_the_runner(0.2); "
              "print(m._runner_pid(), flush=True); time.sleep(300)' " + sys.argv[1])
    proc = subprocess.Popen(worker, shell=True, stdout=sys.stdout)
    time.sleep(300)
""")


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().split(b") ")[-1][:1] != b"Z"
    except OSError:
        return False


def test_a_worker_started_through_a_shell_ends_when_its_driver_is_killed(tmp_path):
    # A full run beside a heavy job (issue 39): a minute after the driver's SIGKILL its worker processes
    # still waited for its control channel; they watched their parent, the shell, which outlives the driver.
    out = tmp_path / "out.txt"
    with open(out, "w", encoding="utf-8") as f:
        driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(ROOT)], stdout=f)
    deadline = time.time() + 60
    while time.time() < deadline and not out.read_text().strip():
        time.sleep(0.1)
    assert int(out.read_text().split()[0]) == driver.pid  # the runner is the driver, not the shell
    from pipelines.framework import runners  # pylint: disable=import-outside-toplevel
    workers = [p for p, cmd in runners._descendants(driver.pid).items()  # pylint: disable=protected-access
               if "_end_with_the_runner" in cmd and not cmd.startswith("/bin/sh")]
    worker = [p for p in workers if _alive(p)]
    assert worker, "the worker process was not found"
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait(timeout=10)
    deadline = time.time() + 15
    while time.time() < deadline and any(_alive(p) for p in worker):
        time.sleep(0.1)
    assert not [p for p in worker if _alive(p)], "the worker outlived its driver"
