"""A Beam runner on `dask.distributed` that runs this project's pipelines faithfully.

Beam ships a `DaskRunner`, but the releases this project can use (TFDV 1.16
caps Beam at 2.74) translate a ParDo without the DoFn lifecycle (2.61 calls
`process` directly: no `setup`, no bundles), mix every tagged output of a
multi-output ParDo into each consumer (2.62-2.74), drop what `finish_bundle`
emits, and compute only the last transform of the graph. Every mining step
here relies on those features (models loaded in `setup`, rejects and counts
as tagged outputs, per-bundle counts from `finish_bundle`, several sinks), so
this module translates the same primitives — Create, ParDo, GroupByKey,
Flatten, as the architecture allows — but runs each ParDo through Beam's own
`DoFnRunner`, keeps tags apart, and computes every leaf of the graph.

Element model: values in the global window (the project uses no windowing);
a Dask partition is a Beam bundle; a DoFn is deserialised and set up once per
worker process and step (as Beam's workers reuse DoFns), so a model is loaded
once per worker.
"""
import hashlib
import logging
import threading

import apache_beam as beam
from apache_beam.internal import pickler
from apache_beam.pipeline import PipelineVisitor
from apache_beam.runners.common import DoFnRunner, Receiver
from apache_beam.runners.runner import PipelineResult, PipelineRunner, PipelineState
from apache_beam.transforms import core
from apache_beam.transforms import sideinputs
from apache_beam.transforms.window import GlobalWindows

LOG = logging.getLogger(__name__)

_MAIN = "__main__"


class _ListReceiver(Receiver):
    def __init__(self, tag, sink):
        self.tag = tag
        self.sink = sink

    def receive(self, windowed_value):
        self.sink.append((self.tag, windowed_value.value))


# One set-up DoFn per (worker process, step, serialised fn): like a Beam worker reusing its DoFns.
_DOFN_CACHE = {}
_DOFN_LOCK = threading.Lock()


def _cached_fn(step, fn_bytes):
    key = (step, hashlib.sha1(fn_bytes).hexdigest())
    with _DOFN_LOCK:
        entry = _DOFN_CACHE.get(key)
        if entry is None:
            fn = pickler.loads(fn_bytes)
            entry = _DOFN_CACHE[key] = {"fn": fn, "setup": False}
    return entry


def _run_bundle(items, step, fn_bytes, call_bytes, tags, *side_values):
    """Run one Dask partition through the DoFn as one Beam bundle; returns [(tag, value)]."""
    entry = _cached_fn(step, fn_bytes)
    args, kwargs, side_specs = pickler.loads(call_bytes)
    out = []
    receivers = {None if tag == _MAIN else tag: _ListReceiver(tag, out) for tag in tags}
    side_inputs = [
        sideinputs.SideInputMap(view_class, view_options, [GlobalWindows.windowed_value(v) for v in values])
        for (view_class, view_options), values in zip(side_specs, side_values)]
    runner = DoFnRunner(entry["fn"], args, kwargs, side_inputs, core.Windowing(GlobalWindows()),
                        tagged_receivers=receivers, step_name=step)
    if not entry["setup"]:
        runner.setup()
        entry["setup"] = True
    runner.start()
    for item in items:
        runner.process(GlobalWindows.windowed_value(item))
    runner.finish()
    return out


def _flatten_lists(parts):
    return [x for part in parts for x in part]


# ------------------------------------------------------------------ primitives
# Composite Create / GroupByKey / Flatten / Reshuffle are replaced by these
# leaves before translation (Beam's own Dask overrides fail on a one-input Flatten).

class _Create(beam.PTransform):
    def __init__(self, values):
        super().__init__()
        self.values = tuple(values)

    def expand(self, pbegin):
        return beam.pvalue.PCollection(pbegin.pipeline, is_bounded=True)

    def get_windowing(self, inputs):
        return beam.Windowing(GlobalWindows())


class _GroupByKeyOnly(beam.PTransform):
    def expand(self, pcoll):
        return beam.pvalue.PCollection.from_(pcoll)


class _Flatten(beam.PTransform):
    def expand(self, pcolls):
        if isinstance(pcolls, beam.pvalue.PCollection):
            return beam.pvalue.PCollection.from_(pcolls)
        pcolls = list(pcolls)
        if not pcolls:
            raise ValueError("Flatten of nothing")
        return beam.pvalue.PCollection.from_(pcolls[0])


class _Identity(beam.PTransform):
    def expand(self, pcoll):
        return beam.pvalue.PCollection.from_(pcoll)


def _overrides():
    from apache_beam.pipeline import PTransformOverride

    def make(cls, build):
        class _Override(PTransformOverride):
            def matches(self, applied):
                return applied.transform.__class__ == cls

            def get_replacement_transform_for_applied_ptransform(self, applied):
                return build(applied.transform)
        return _Override()

    return [make(beam.Create, lambda t: _Create(t.values)),
            make(beam.Reshuffle, lambda t: _Identity()),
            make(beam.GroupByKey, lambda t: _GroupByKeyOnly()),
            make(beam.Flatten, lambda t: _Flatten())]


class _Translator(PipelineVisitor):
    def __init__(self, num_partitions):
        self.num_partitions = num_partitions
        self.bags = {}  # PCollection -> dask bag
        self.consumed = set()

    def visit_transform(self, node):
        import dask
        import dask.bag as db

        transform = node.transform
        inputs = [pc for pc in node.inputs if isinstance(pc, beam.pvalue.PCollection)]
        for pc in inputs:
            self.consumed.add(pc)
        for si in node.side_inputs:
            self.consumed.add(si.pvalue)
        outputs = dict(node.outputs)

        if isinstance(transform, _Create):
            values = list(transform.values)
            n = max(1, min(len(values), self.num_partitions))
            bag = db.from_sequence(values, npartitions=n)
            self._set_single(outputs, bag)
        elif isinstance(transform, _GroupByKeyOnly):
            bag = self.bags[inputs[0]]
            # At most num_partitions groups of keys: the task graph stays small (see _Flatten below).
            grouped = bag.groupby(lambda kv: kv[0], shuffle="tasks",
                                  npartitions=min(bag.npartitions, self.num_partitions)).map(
                lambda kv: (kv[0], [item[1] for item in kv[1]]))
            self._set_single(outputs, grouped)
        elif isinstance(transform, _Flatten):
            bags = [self.bags[pc] for pc in inputs]
            bag = db.concat(bags) if bags else db.from_sequence([], npartitions=1)
            # A concatenation has the partitions of all its inputs; a job's many small count and
            # reject collections would multiply the tasks of every later step (tens of thousands
            # of tasks for the bundled sample) without this.
            if bag.npartitions > self.num_partitions:
                bag = bag.repartition(npartitions=self.num_partitions)
            self._set_single(outputs, bag)
        elif isinstance(transform, _Identity):
            self._set_single(outputs, self.bags[inputs[0]])
        elif isinstance(transform, beam.ParDo):
            self._translate_pardo(node, transform, inputs, outputs, dask, db)
        elif isinstance(transform, beam.Impulse):
            self._set_single(outputs, db.from_sequence([b""], npartitions=1))
        else:
            raise NotImplementedError(
                f"the Dask runner translates only Create, ParDo, GroupByKey and Flatten; "
                f"step {node.full_label!r} is a {type(transform).__name__}")

    def _set_single(self, outputs, bag):
        for pc in outputs.values():
            self.bags[pc] = bag

    def _translate_pardo(self, node, transform, inputs, outputs, dask, db):
        args, kwargs = transform.args, transform.kwargs  # side inputs as placeholders
        fn_bytes = pickler.dumps(transform.fn)
        tags = [_MAIN if tag is None else str(tag) for tag in outputs]
        side_specs, side_delayed = [], []
        for si in node.side_inputs:
            side_specs.append((type(si), si._view_options()))
            # Not optimised on its own: that fuses and renames the side input's upstream tasks, and Dask
            # then runs them twice (once for the side input, once for the main path): the whole read
            # stage of a markers job, whose marker counts are side inputs.
            side_delayed.append(dask.delayed(_flatten_lists)(
                self.bags[si.pvalue].to_delayed(optimize_graph=False)))
        # Beam's pickler, not Dask's: side-input views and placeholders only round-trip through it.
        call_bytes = pickler.dumps((list(args), dict(kwargs), side_specs))
        tagged = self.bags[inputs[0]].map_partitions(
            _run_bundle, node.full_label, fn_bytes, call_bytes, tags, *side_delayed)
        for tag, pc in outputs.items():
            name = _MAIN if tag is None else str(tag)
            if len(outputs) == 1:
                self.bags[pc] = tagged.map(lambda tv: tv[1])
            else:
                self.bags[pc] = tagged.filter(lambda tv, name=name: tv[0] == name).map(lambda tv: tv[1])

    def leaves(self):
        seen, out = set(), []
        for pc, bag in self.bags.items():
            if pc not in self.consumed and bag.name not in seen:
                seen.add(bag.name)
                out.append(bag)
        return out


class DaskRunnerResult(PipelineResult):
    def __init__(self, client, futures, owns_cluster):
        super().__init__(PipelineState.RUNNING)
        self.client = client
        self.futures = futures
        self.owns_cluster = owns_cluster

    def wait_until_finish(self, duration=None):
        try:
            self.client.gather(self.futures, errors="raise")
            self._state = PipelineState.DONE
        except BaseException:
            self._state = PipelineState.FAILED
            raise
        finally:
            cluster = self.client.cluster if self.owns_cluster else None
            self.client.close()  # the runner's own client, also against a shared scheduler
            if cluster is not None:
                cluster.close()
        return self._state

    def metrics(self):  # counts are data in this project (see transforms.common)
        raise NotImplementedError("the Dask runner reports counts through the manifest, not Beam metrics")


def _warm_up(preload):
    """On a worker of the runner's own LocalCluster: import `preload` without cyclic collection, freeze."""
    from pipelines.framework.workers.process import preload_frozen  # pylint: disable=import-outside-toplevel
    preload_frozen(preload)


class DaskRunner(PipelineRunner):
    """Runs a pipeline on a `dask.distributed` cluster.

    Args:
      address: scheduler address (`tcp://host:8786`); None starts a LocalCluster.
      num_workers: worker processes of that LocalCluster.
      num_partitions: partitions for each Create (default: 2 per worker).
      preload: modules (or `module:function`) each worker of a LocalCluster imports before the run, with
        the cyclic collector off, and then freezes (`_warm_up`); none on a shared cluster.
    """

    def __init__(self, address=None, num_workers=2, num_partitions=None, preload=()):
        super().__init__()
        self.address = address
        self.num_workers = num_workers
        self.num_partitions = num_partitions or 2 * num_workers
        self.preload = tuple(preload)

    def run_pipeline(self, pipeline, options):
        import dask
        from dask import distributed

        pipeline.replace_all(_overrides())
        translator = _Translator(self.num_partitions)
        pipeline.visit(translator)
        if self.address:
            client, owns = distributed.Client(self.address), False
        else:
            # Dask's statistical profiler samples every worker thread's stack every 10 ms: on the deep
            # stacks of wikitext parsing it cost the whole job ~13% more time (10 copies of the sample:
            # 58.1 s on, 50.7 s off). Off for our own cluster; a shared cluster keeps its own settings.
            with dask.config.set({"distributed.worker.profile.enabled": False}):
                cluster = distributed.LocalCluster(n_workers=self.num_workers, threads_per_worker=1, processes=True,
                                                   dashboard_address=None)
            client, owns = distributed.Client(cluster), True
            # As the local runner's warm workers do (pipelines/framework/workers/warm.py): each worker of our
            # own cluster imports what every step needs with the cyclic collector off, then freezes it, so that
            # no collection during the run scans the modules' objects again (never on a shared cluster: its
            # workers outlive the run, and what a later job leaves behind must stay collectable).
            if self.preload:
                client.run(_warm_up, list(self.preload))
        futures = client.compute(translator.leaves())
        return DaskRunnerResult(client, futures, owns)
