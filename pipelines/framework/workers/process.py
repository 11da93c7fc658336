"""The `rewrite-mine` process itself: when it collects garbage, and how it ends once its work is written.

`defer_collection` / `resume_collection`: no cyclic garbage collection while the job is imported and
its pipeline built; then what exists is frozen (never scanned again) and collection resumes for the run.

`exit_now`: a driver that ran a job has TensorFlow (TFDV), Beam's gRPC servers and often spaCy
loaded; the interpreter's teardown of them (finalisers, garbage collection of every module) took
1.1-3.3 s here after the summary was printed: time a user waits for nothing. `exit_now` flushes what
the process wrote (standard streams, log handlers) and ends it with `os._exit`.

Only entry points call `defer_collection` and `exit_now` (`rewrite-mine`, the local runner's worker
processes), never library code: a test or a notebook that calls `pipelines.cli.main` keeps its
interpreter and its collector.
"""
import gc
import logging
import os
import sys


def flush_streams() -> None:
    """Flush standard output and standard error, whatever state they are in."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed or broken pipe: nothing more can reach it
            pass


def exit_now(code: int = 0) -> None:
    """Flush the standard streams and every logging handler, then end the process with `code`."""
    try:
        logging.shutdown()
    finally:
        flush_streams()
        os._exit(code if isinstance(code, int) else 1)


# ------------------------------------------------------------------ garbage collection

_DEFERRED: list = []


def defer_collection() -> None:
    """No cyclic garbage collection while the job is imported and its pipeline built (entry points
    only): that work makes several hundred thousand long-lived objects and almost no garbage, and the
    collector's passes over them cost a fifth of it. `resume_collection` turns it back on."""
    if gc.isenabled():
        gc.disable()
        _DEFERRED.append(True)


def resume_collection(preload=()) -> None:
    """After `defer_collection`: import `preload` (modules or `module:function`, as warm workers do: what
    the run would import anyway, cheaper now), freeze what exists (modules, the built pipeline: the
    collector never scans it again, which also makes every later full collection of the run cheaper) and
    collect as usual from now on. Nothing happens when collection was not deferred (library callers)."""
    if _DEFERRED:
        _DEFERRED.clear()
        preload_frozen(preload)
        gc.enable()


def preload_frozen(names) -> None:
    """`preload_modules` with the cyclic collector off, then freeze everything that exists (the imports
    make hundreds of thousands of long-lived objects and almost no garbage; frozen, no later collection
    scans them again). The collector is left on or off as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        preload_modules(names)
        gc.freeze()
    finally:
        if enabled:
            gc.enable()


def preload_modules(names) -> None:
    """Import each module of `names`, or call `module:function`: what a process will need, imported ahead
    (warm workers, in-process runs). What cannot be preloaded is left to the code that needs it, which
    meets and reports the error itself."""
    for name in names:
        if not name:
            continue
        module, _, function = name.partition(":")
        try:
            __import__(module)
            if function:
                getattr(sys.modules[module], function)()
        except Exception:  # noqa: BLE001 - any failure is the needing code's to meet (Ctrl-C still stops)
            logging.getLogger("rewrite_mine").debug("could not preload %s", name, exc_info=True)
