"""Ending a `rewrite-mine` process once its work is done and written.

A driver that ran a job has TensorFlow (TFDV), Beam's gRPC servers and often spaCy loaded; the
interpreter's teardown of them (finalisers, garbage collection of every module) took 1.1-3.3 s
here after the summary was printed: time a user waits for nothing. `exit_now` flushes what the
process wrote (standard streams, log handlers) and ends it with `os._exit`.

Only entry points call it (`rewrite-mine`, the local runner's worker processes), never library
code: a test or a notebook that calls `pipelines.cli.main` keeps its interpreter.
"""
import logging
import os
import sys


def exit_now(code: int = 0) -> None:
    """Flush the standard streams and every logging handler, then end the process with `code`."""
    try:
        logging.shutdown()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # closed or broken pipe: nothing more can reach it
                pass
        os._exit(code if isinstance(code, int) else 1)
