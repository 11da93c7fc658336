"""Choosing and configuring the Beam runner.

`--runner local` (the default) is Beam's portable in-process runner
(`FnApiRunner`) chosen explicitly: recent `DirectRunner`s first try to
download the Prism binary, and this project must never touch the network.
With `--num_workers N > 1` it runs N SDK worker processes
(`direct_running_mode=multi_processing`); with 1 it runs in-process.

`--runner dask` runs on a `dask.distributed` cluster (`--dask_address`, or a
LocalCluster of `--num_workers` processes) through `pipelines.dask_runner`.

Any other runner name is handed to Beam unchanged together with every option
the job does not know itself (`--project`, `--region`, `--temp_location`,
`--job_endpoint`, `--environment_type`, ...).
"""
import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

LOCAL = "local"
DASK = "dask"


def make_options(args, beam_args) -> PipelineOptions:
    runner = (args.runner or LOCAL)
    extra = dict(save_main_session=False)
    if runner.lower() == LOCAL:
        mode = "multi_processing" if args.num_workers > 1 else "in_memory"
        extra.update(direct_running_mode=mode, direct_num_workers=args.num_workers)
    elif runner.lower() != DASK:
        extra["runner"] = runner
    return PipelineOptions(list(beam_args), **extra)


def make_runner(args):
    runner = (args.runner or LOCAL).lower()
    if runner == LOCAL:
        from apache_beam.runners.portability.fn_api_runner import FnApiRunner
        return FnApiRunner()
    if runner == DASK:
        return make_dask_runner(args)
    return None  # Beam resolves the name from the options


def make_dask_runner(args):
    try:
        import dask.bag  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the extra
        raise RuntimeError("--runner dask needs the dask extra: pip install -c constraints.txt "
                           "'rewrite-mining[dask]'") from e
    from pipelines.dask_runner import DaskRunner
    return DaskRunner(address=args.dask_address, num_workers=args.num_workers)


def make_pipeline(args, beam_args) -> beam.Pipeline:
    return beam.Pipeline(runner=make_runner(args), options=make_options(args, beam_args))
