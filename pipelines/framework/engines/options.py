"""The Beam options every run on an engine gets, whichever engine: what flink.py and spark.py share.

`beam_option` reads a Beam option the user gave (what the user gave always wins over what is chosen
here); the two constants say how the engine keeps and counts the Python SDK workers.
"""
import typing


def beam_option(beam_args: typing.Sequence[str], name: str) -> typing.Optional[str]:
    """The value of Beam option `--name` in `beam_args` (`--name V` or `--name=V`), or None."""
    flag = f"--{name}"
    value = None
    for i, a in enumerate(beam_args):
        if a == flag and i + 1 < len(beam_args):
            value = beam_args[i + 1]
        elif a.startswith(flag + "="):
            value = a[len(flag) + 1:]
    return value


#: How long an engine keeps an idle SDK worker for the next stage of the same job (Beam's
#: `--environment_cache_millis`, 0 by default: a new worker per stage, each loading its models again; the
#: Discovery sample started some 30 on Flink and 72 on Spark). With it, 2 workers for the whole job, where
#: the engine keeps Beam's classes loaded between stages (Spark; a Flink cluster started here).
ENVIRONMENT_CACHE_MS = 60_000


#: Python SDK workers per task slot of a Flink TaskManager (Beam's `--sdk_worker_parallelism` counts them per
#: TaskManager). Beam binds each task to a worker by a counter (`DefaultJobBundleFactory`: the n-th stage
#: instance opened gets worker n mod N), so the two subtasks of the heaviest stage share one worker, one core
#: between them, whenever the tasks opened between them number a multiple of N: half the runs with one
#: worker per slot (Discovery on 40 copies: its read stage 39-46 s instead of 24-28 s), a quarter with two.
#: Beam's `--load_balance_bundles` would pick a free worker per bundle, but it deadlocked here (a region's
#: upstream bundles held every worker while the downstream ones waited for one).
WORKERS_PER_SLOT = 2

#: The same, when the TaskManager starts the workers as containers of the worker image
#: (`--environment_type DOCKER`): one per slot. Each container is a cold Python that imports Beam and loads the
#: job's models, and on a small machine two per slot cost more than the shared worker above. Measured
#: (bench/bench_runners.py, 40 copies, Flink with 2 slots, data in MinIO, six rounds on a 2-core machine,
#: 2026-11-29): two per slot 62-94 s (median ~78), one per slot 54-88 s (median ~59), against 30-34 s for the
#: local runner with 2 workers on local disk; shards byte-identical. The slow round of one per slot (88 s) is
#: likely the shared-worker binding above.
DOCKER_WORKERS_PER_SLOT = 1


def cache_environments(options: dict, beam_args) -> None:
    """Keep idle SDK workers for the next stage (`ENVIRONMENT_CACHE_MS`) unless the user chose."""
    if beam_option(beam_args, "environment_cache_millis") is None:
        options["environment_cache_millis"] = ENVIRONMENT_CACHE_MS
