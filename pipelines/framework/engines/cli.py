"""`rewrite-mine cluster start|stop|status flink|spark`: a Flink or Spark cluster on this machine (loopback).

Not a Beam job: `pipelines/cli.py` hands `rewrite-mine cluster ...` here. The clusters are flink.py's
`FlinkCluster` and spark.py's `SparkCluster`, their files under <engines>/run/<engine> unless --dir says.
"""
import json
import os
import sys
import typing

from pipelines.framework.engines.flink import RESTART_ATTEMPTS, RESTART_DELAY_S, FlinkCluster
from pipelines.framework.engines.paths import FLINK, SPARK, EngineError, engines_dir
from pipelines.framework.engines.spark import SparkCluster
from pipelines.framework.workers.warm import ENGINE_PARALLELISM


def default_workdir(engine: str) -> str:
    return os.path.join(engines_dir(), "run", engine)


def cluster_main(argv: typing.Sequence[str]) -> int:
    """`rewrite-mine cluster start|stop|status flink|spark`: a cluster on this machine (loopback)."""
    import argparse  # pylint: disable=import-outside-toplevel
    parser = argparse.ArgumentParser(
        prog="rewrite-mine cluster",
        description="Start, stop or show a Flink session cluster or a Spark standalone cluster on this machine "
                    "(loopback), from the engines `make engines` fetched. Jobs go there with --runner flink "
                    "--flink_master localhost:PORT or --runner spark --spark_master_url spark://127.0.0.1:PORT.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("action", choices=("start", "stop", "status"))
    parser.add_argument("engine", choices=(FLINK, SPARK))
    parser.add_argument("--dir", default=None, help="the cluster's configuration, logs and pid files "
                                                    "(default: <engines>/run/<engine>)")
    parser.add_argument("--port", type=int, default=None,
                        help="Flink: REST port (default 8081); Spark: master port (default 7077)")
    parser.add_argument("--rpc_port", type=int, default=6123, help="Flink: JobManager RPC port")
    parser.add_argument("--job_server_port", type=int, default=8099,
                        help="Flink: port of Beam's job server kept beside the cluster, which runs on it use (a "
                             "run that starts its own pays a JVM's start and a cold translation, ~5-9 s); 0: none")
    parser.add_argument("--ui_port", type=int, default=8080, help="Spark: master web UI port")
    parser.add_argument("--worker_ui_port", type=int, default=8082, help="Spark: worker web UI port")
    # Two: what a run's first look at its command line takes for a cluster's parallelism (warm.ENGINE_PARALLELISM).
    parser.add_argument("--slots", type=int, default=ENGINE_PARALLELISM,
                        help="Flink: task slots of each TaskManager; Spark: worker cores")
    parser.add_argument("--taskmanagers", type=int, default=1,
                        help="Flink: TaskManagers (JVMs) to start; a job with --parallelism at most the slots of "
                             "all but one survives losing one of them")
    parser.add_argument("--restart_attempts", type=int, default=RESTART_ATTEMPTS,
                        help="Flink: times a failed task is restarted (fixed-delay strategy); 0: none, a job fails "
                             "at the first lost TaskManager or SDK worker")
    parser.add_argument("--restart_delay", type=int, default=RESTART_DELAY_S, help="Flink: seconds between restarts")
    parser.add_argument("--workers", type=int, default=1,
                        help="Spark: workers (JVMs) to start, web UIs on --worker_ui_port and the ports after it; a "
                             "job survives losing one of them")
    parser.add_argument("--app_data_ttl", type=int, default=3600,
                        help="Spark: seconds after an application ended when its workers delete its directory "
                             "(executors' logs, the job's staged jar: some 90 MB per executor and job)")
    parser.add_argument("--memory", default=None, help="Flink: TaskManager process size (default 4096m); "
                                                       "Spark: worker memory (default 4g)")
    args = parser.parse_args(list(argv))
    workdir = args.dir or default_workdir(args.engine)
    try:
        if args.engine == FLINK:
            cluster: typing.Any = FlinkCluster(workdir, port=args.port or 8081, slots=args.slots,
                                               rpc_port=args.rpc_port, taskmanager_memory=args.memory or "4096m",
                                               taskmanagers=args.taskmanagers, restart_attempts=args.restart_attempts,
                                               restart_delay_s=args.restart_delay, job_port=args.job_server_port)
            where = f"--runner flink --flink_master {cluster.master}  (web UI {cluster.rest_url})"
        else:
            cluster = SparkCluster(workdir, port=args.port or 7077, ui_port=args.ui_port,
                                   worker_ui_port=args.worker_ui_port, cores=args.slots, memory=args.memory or "4g",
                                   workers=args.workers, app_data_ttl_s=args.app_data_ttl)
            where = f"--runner spark --spark_master_url {cluster.master_url}  (web UI {cluster.ui_url})"
        if args.action == "start":
            if cluster.running():
                said = []
                dead = [i for i in range(cluster.taskmanagers) if not cluster.taskmanager_pids(i)] \
                    if args.engine == FLINK else []
                if dead and int(cluster.overview().get("taskmanagers", 0)) < cluster.taskmanagers:
                    for i in dead:  # the JobManager is up, some of its TaskManagers died
                        cluster.start_taskmanager(index=i)
                    said.append(f"started {len(dead)} of its TaskManagers again")
                if args.engine == FLINK:
                    said += _repair_job_server(cluster)
                print(f"{args.engine} {'was running; ' + '; '.join(said) if said else 'is already running'}: {where}")
                return 0
            cluster.start()
            print(f"{args.engine} started (files in {workdir}): {where}")
            if args.engine == FLINK and cluster.job_endpoint:
                print(f"Beam's job server kept beside it at {cluster.job_endpoint}: runs on the cluster use it "
                      f"(log: {os.path.join(workdir, 'log', 'job-server.log')})")
            return 0
        if args.action == "stop":
            removed = cluster.stop()
            print(f"{args.engine} stopped ({workdir})" +
                  (f"; removed {removed} container(s) its jobs' SDK workers ran in" if removed else ""))
            return 0
        if cluster.running():
            detail = cluster.overview() if args.engine == FLINK else {
                k: cluster.status().get(k) for k in ("status", "aliveworkers", "cores", "coresused")}
            if args.engine == FLINK:
                from pipelines.framework.engines.flink import kept_job_server  # pylint: disable=import-outside-toplevel
                from pipelines.framework.engines.paths import job_server_jar  # pylint: disable=import-outside-toplevel
                detail["job_server"] = kept_job_server(cluster.master, job_server_jar(FLINK), warn=False) or (
                    "none that answers: each run starts its own" if cluster.configured_job_server()[0]
                    else "none kept: each run starts its own")
            print(f"{args.engine} is running: {where}\n{json.dumps(detail, sort_keys=True)}")
            return 0
        print(f"{args.engine} is not running at {cluster.master if args.engine == FLINK else cluster.master_url}")
        return 1
    except EngineError as e:
        print(f"rewrite-mine cluster: error: {e}", file=sys.stderr)
        return 2


def _repair_job_server(cluster) -> typing.List[str]:
    """A running Flink cluster whose configuration names a kept job server that does not answer: started
    again on the port the configuration names, when it is of the jar `make engines` fetched (else the
    cluster must be stopped and started again). What was done, for the console."""
    from pipelines.framework.engines.flink import kept_job_server  # pylint: disable=import-outside-toplevel
    from pipelines.framework.engines.paths import job_server_jar  # pylint: disable=import-outside-toplevel
    endpoint, jar = cluster.configured_job_server()
    ours = job_server_jar(FLINK)
    if not endpoint or kept_job_server(cluster.master, ours, warn=False):
        return []
    port = endpoint.rsplit(":", 1)[-1]
    if jar != os.path.basename(ours) or not port.isdigit():
        return [f"its configuration names a job server of another jar ({jar}) at {endpoint}: runs start their "
                f"own until `rewrite-mine cluster stop flink` and start again"]
    cluster.job_port = int(port)
    cluster.start_job_server()
    return [f"started its job server again at {cluster.job_endpoint}"]
