"""`rewrite-mine`: one command line for every job.

    rewrite-mine <job> --input GLOB [--input GLOB ...] --output DIR [--tsv] [job options] [Beam options]
    rewrite-mine <job> --help

`python -m pipelines.<job>` runs the same job.
"""
import importlib
import logging
import os
import sys

# Quieten TensorFlow's C++ start-up chatter (TFDV statistics import it) in this process and its workers.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

# job name -> module under pipelines/
JOBS = {
    "discovery": "pipelines.discovery",
    "wikisplit": "pipelines.wikisplit",
    "discofuse": "pipelines.discofuse",
}
ALIASES = {"markers": "discovery", "splits": "wikisplit", "fusion": "discofuse"}


def _usage() -> str:
    lines = ["usage: rewrite-mine <job> --input GLOB --output DIR [options]", "", "jobs:"]
    for name, module in JOBS.items():
        try:
            job = importlib.import_module(module).JOB
            summary = (job.doc or "").strip().splitlines()[0] if job.doc else ""
        except ImportError as e:
            summary = f"(unavailable: {e})"
        lines.append(f"  {name:<11} {summary}")
    lines += ["", "rewrite-mine <job> --help lists every option of a job and its default."]
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    name = ALIASES.get(argv[0], argv[0])
    if name not in JOBS:
        print(f"rewrite-mine: unknown job {argv[0]!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("apache_beam", "absl", "tensorflow"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    from pipelines.base import JobFailed
    job = importlib.import_module(JOBS[name]).JOB
    try:
        job.run(argv[1:])
    except JobFailed as e:
        print(f"rewrite-mine {name}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
