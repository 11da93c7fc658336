"""The machinery that runs the jobs of pipelines/: what a job module calls, never a job itself.

    job.py           `Job` / `JobOutput`: options and `--help`, building the pipeline around a job's
                     `build` (quality stage, splits, sinks, rejects, validation), the manifest, the summary
    errors.py        `JobFailed`, the error a user can act on
    publication.py   input fingerprints, versions, staging and atomic publication; `execute` runs a
                     staged run and publishes it (scheduled, incremental reprocessing)
    runners.py       choosing and configuring the Beam runner (local, dask, portable, Dataflow)
    workers/         the Python SDK worker processes: the local runner's warm workers (one import, then forks,
                     before the job is imported), the EXTERNAL worker pool with its fork server for Flink and
                     Spark, the module each local worker runs, and how a process ends (no interpreter teardown)
                     and when it collects garbage
    engines/         Flink and Spark: the cached files, clusters on this machine (`rewrite-mine cluster`),
                     Beam's job server, and what `--runner flink|spark` adds to a job
    dask_runner.py   the project's runner on a dask.distributed cluster
    progress.py      the live progress display (driver side; the worker side is transforms/progress.py)
    console.py       what reaches the console and what goes to OUTPUT/logs/
    advice.py        what to try next, printed after a run
    loaders.py       TFDS metadata, Parquet configs and the dataset card written beside the shards
    dataset_card.py  the dataset card's text (README.md of OUTPUT/<dataset>/)
"""
