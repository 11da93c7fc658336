"""Distributed engines: Flink and Spark clusters on this machine, Beam's job servers for them, and the
options that send a job there.

    rewrite-mine cluster start flink     a Flink session cluster on loopback: a JobManager and a
                                         TaskManager with 2 slots, REST API and web UI on localhost:8081
    rewrite-mine cluster start spark     a Spark standalone master (spark://127.0.0.1:7077, web UI on
                                         :8080) and a worker with 2 cores
    rewrite-mine cluster stop|status flink|spark

    rewrite-mine <job> ... --runner flink --flink_master HOST:PORT
    rewrite-mine <job> ... --runner spark --spark_master_url spark://HOST:PORT

The engines' files (Flink's and Spark's distributions, Beam's job servers) are fetched once, pinned, by
`make engines` (tools/engines.sh) into `.engines/` of the checkout, or `$REWRITE_MINE_ENGINES`; nothing
is downloaded while a job runs. A run on an engine is Beam's FlinkRunner / SparkRunner with the job
server started here from that cache, and, for a cluster on this machine, Beam's EXTERNAL environment
served by a pool of SDK worker processes of this Python (pipelines/framework/workers/external_pool.py):
the engine's workers ask it for their Python workers. For a cluster on other hosts, the user names the
environment its workers can start (`--environment_type DOCKER --environment_config IMAGE`, the worker
image of the Dockerfile).

One module per thing a newcomer looks for (imports run down this list, never up):

    paths.py        where `make engines` put the engines' files, their versions, Java; `EngineError`
    daemons.py      the daemons seen from here: pid files, taken ports, REST calls, logs, waiting, stopping
    options.py      the Beam options every engine run gets (SDK workers kept between stages, per slot)
    flink.py        Flink: `FlinkCluster` (a session cluster on loopback) and the options of a run on one
    preflight.py    a user's own Flink cluster read over REST before submission: network memory, restarts
    spark.py        Spark: `SparkCluster` (a standalone cluster on loopback) and the options of a run on one
    job_server.py   `JobServer`: Beam's job server for one run, from the cached jar
    submission.py   `submission`: the checks and options of `--runner flink|spark`, and what runs beside
                    the job (job server, worker pool)
    cli.py          `rewrite-mine cluster start|stop|status flink|spark`

Nothing is re-exported here: import from the module (`from pipelines.framework.engines.flink import
FlinkCluster`).
"""
