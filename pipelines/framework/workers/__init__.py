"""Python SDK worker processes: how this project starts them, and how a process of it ends.

Beam runs a job's Python code in SDK worker processes. Left to itself, Beam starts each one cold:
the local runner (`FnApiRunner`, multi-process mode) starts its N workers only when the first stage
runs, after the driver has built the pipeline, and each then imports Beam's worker, TensorFlow (TFDV's
statistics), spaCy and this project (1.7-2.3 s apiece) while the driver waits; on Flink and Spark, Beam's
EXTERNAL worker pool (`worker_pool_main`) starts `python` from PATH for every worker the engine asks
for, or LOOPBACK runs them all as threads of the submitting process (one core: the GIL); and every
process then spends 1.5-3.3 s in the interpreter's teardown before the runner can go on. Here:

    warm.py             the local runner's workers, warm: one process (a zygote) starts before the job is
                        even imported, imports once with the collector off, and forks the other workers
                        when the run starts; the processes Beam starts hand their work to them
                        (`REWRITE_MINE_WARM_WORKERS=0` turns it off)
    sdk_worker_main.py  the module each local worker process Beam starts runs (`runners.WORKER_MODULE`):
                        hands its work to a warm process, or runs Beam's worker itself; ends without teardown
    external_pool.py    Beam's EXTERNAL environment for Flink and Spark clusters on this machine: a worker
                        pool service whose workers are processes forked from a fork server that imported once
                        (the same switch turns the fork server off), else new processes of this Python
    process.py          how a process of this project ends (`exit_now`, no interpreter teardown) and when it
                        collects garbage (none while importing; frozen after): the driver, workers, zygote

What it saves (docs/RUNNERS.md, issue 40's round: Discovery, local runner, 2 workers, warm against
`REWRITE_MINE_WARM_WORKERS=0`, medians on a loaded 2-core machine): on the README's sample 16% of the wall
time and 27% of the CPU time, on 40 copies 36% and 16%; the imports are paid once, beside the driver's,
and frozen (no later garbage collection scans them). `bench/bench_runners.py --row 'local, 2 workers'
--warm_workers both` repeats the measurement.
"""
