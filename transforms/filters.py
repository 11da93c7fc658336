"""Record checks and score filters: PCollection[(variant, record)] in and out.

(Also PCollection[(variant, split, record)]: the record is the last item.)

  CheckRecordsFn   bad input -> rejects: `schema_mismatch` (not the dataset's
                   record class, a field of the wrong type, a label outside
                   its domain), `empty_field`, `non_text` (control characters,
                   U+FFFD replacement characters from undecodable bytes, lone
                   surrogates).
  BleuFilterFn     sentence BLEU between two fields (miners.quality.scoring.BleuCheck),
                   scores stored on the record, `bleu_too_low` / `bleu_too_high`.
  BertScoreFilter  BERTScore F1 of batched pairs with a model loaded once per
                   worker in `setup()`; `bertscore_too_low`.
"""
import dataclasses
import enum
import re
import typing

import apache_beam as beam

from miners.quality import scoring
from transforms.common import COUNTS, REJECTS, DeterministicBatches, MiningDoFn

# C0/C1 control characters other than tab and newline, U+FFFD (what undecodable
# bytes become), lone surrogates (what `surrogateescape` leaves) and NUL.
_NON_TEXT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffd\ud800-\udfff]")


def check_record(record, record_cls, text_fields, label_domain=None) -> typing.Tuple[typing.Optional[str], str]:
    """(reason, detail) for a bad record, (None, "") for a good one."""
    if not isinstance(record, record_cls):
        return "schema_mismatch", f"expected {record_cls.__name__}, got {type(record).__name__}"
    hints = typing.get_type_hints(record_cls)
    for f in dataclasses.fields(record_cls):
        v, tp = getattr(record, f.name), hints[f.name]
        if typing.get_origin(tp) is tuple:
            ok = isinstance(v, tuple)
        elif tp is float:
            ok = isinstance(v, (float, int)) and not isinstance(v, bool) and v == v  # not NaN
        elif tp is int:
            ok = isinstance(v, int)
        elif isinstance(tp, type) and issubclass(tp, enum.Enum):
            ok = isinstance(v, tp)
        else:
            ok = isinstance(v, tp)
        if not ok:
            return "schema_mismatch", f"field {f.name} is {type(v).__name__}, expected {getattr(tp, '__name__', tp)}"
    for name in text_fields:
        text = getattr(record, name)
        if not text.strip():
            return "empty_field", f"{name} is empty"
        m = _NON_TEXT.search(text)
        if m:
            return "non_text", f"{name} holds U+{ord(m.group(0)):04X} at offset {m.start()}"
    if label_domain is not None and record.label() not in label_domain:
        return "schema_mismatch", f"label {record.label()!r} is not in the dataset's label list"
    return None, ""


def _key(record):
    try:
        return record.split_key()
    except Exception:  # a foreign object: anything that names it
        return type(record).__name__


def _payload(record):
    try:
        return record.to_json()
    except Exception:
        return repr(record)


class CheckRecordsFn(MiningDoFn):
    """Drops records that do not match the dataset's record class or have bad text."""

    def __init__(self, dataset, record_cls, text_fields, label_domain=None):
        super().__init__(dataset, "check")
        self.record_cls = record_cls
        self.text_fields = tuple(text_fields)
        self.label_domain = frozenset(label_domain) if label_domain is not None else None

    def process(self, element):
        if not isinstance(element, tuple) or len(element) not in (2, 3):
            yield self.reject("schema_mismatch", key="", detail="element is not (variant, record)",
                              payload=repr(element))
            return
        variant, record = element[0], element[-1]
        try:
            reason, detail = check_record(record, self.record_cls, self.text_fields, self.label_domain)
        except Exception as e:  # never let one record kill the job
            reason, detail = "schema_mismatch", f"{type(e).__name__}: {e}"
        if reason:
            yield self.reject(reason, source=variant, key=_key(record), detail=detail, payload=_payload(record))
            return
        self.inc("passed")
        yield element


class BleuFilterFn(MiningDoFn):
    """Sentence BLEU checks of one dataset; stores scores on the record."""

    def __init__(self, dataset, checks: typing.Sequence[scoring.BleuCheck]):
        super().__init__(dataset, "bleu")
        self.checks = tuple(checks)

    def process(self, element):
        variant, record = element[0], element[-1]
        record, reason, detail = scoring.check_bleu(record, self.checks)
        if reason:
            yield self.reject(reason, source=variant, key=record.split_key(), detail=detail,
                              payload=record.to_json())
            return
        self.inc("passed")
        yield element[:-1] + (record,)


@dataclasses.dataclass(frozen=True)
class BertScoreCheck:
    """BERTScore F1 of `candidate` against `reference`; stored in `store` when given."""
    candidate: str
    reference: str
    store: str = ""
    min_score: float = scoring.DEFAULT_MIN_BERTSCORE
    # Batch the records that share a reference together (one more shuffle): BERTScore embeds each
    # distinct sentence of a batch once, so a reference that comes back in many records (SimSim: a
    # seed's ~7 records) is embedded about once instead of once per record.
    group_by_reference: bool = False


class _BertScoreBatchFn(MiningDoFn):
    """A batch of (variant, record) -> scored records; the model is loaded in setup()."""

    def __init__(self, dataset, check: BertScoreCheck, model_dir=None, num_layers=None, batch_size=64):
        super().__init__(dataset, "bertscore")
        self.check = check
        self.model_dir, self.num_layers, self.batch_size = model_dir, num_layers, batch_size
        self._scorer = None

    def setup(self):
        self._scorer = scoring.BertScorer(self.model_dir, self.num_layers, self.batch_size).load()

    def process(self, batch):
        c = self.check
        cands = [getattr(e[-1], c.candidate) for e in batch]
        refs = [getattr(e[-1], c.reference) for e in batch]
        scores = self._scorer.score(cands, refs)
        for e, score in zip(batch, scores):
            variant, record = e[0], e[-1]
            if c.store:
                record = dataclasses.replace(record, **{c.store: score})
            if score < c.min_score:
                yield self.reject("bertscore_too_low", source=variant, key=record.split_key(),
                                  detail=f"BERTScore F1({c.candidate}, {c.reference}) = {score:.3f} < {c.min_score}",
                                  payload=record.to_json())
                continue
            self.inc("passed")
            yield e[:-1] + (record,)


def _element_sort_key(e) -> str:
    """(variant, [split,] record) -> a string that orders it among its batch's neighbours (the record
    without its model scores: a batch's make-up never follows a score's last digit)."""
    return "\t".join(str(x) for x in e[:-1]) + "\t" + e[-1].shard_key()


class BertScoreFilter(beam.PTransform):
    """Batches pairs (`DeterministicBatches`) and scores them. Returns dict(examples, rejects, counts)."""

    def __init__(self, dataset, check: BertScoreCheck, model_dir=None, num_layers=None, batch_size=64,
                 label=None):
        super().__init__(label)
        self.dataset, self.check = dataset, check
        self.model_dir, self.num_layers, self.batch_size = model_dir, num_layers, batch_size

    def expand(self, pcoll):
        # A BERTScore depends in its last float bits on what else is in its batch (padding), and the
        # stored score and the floor's verdict on it: batches follow the input (DeterministicBatches,
        # sorted by the record), never the runner's bundles as beam.BatchElements' batches do.
        if self.check.group_by_reference:
            field = self.check.reference
            batches = (pcoll
                       | "KeyByReference" >> beam.Map(lambda e: (getattr(e[-1], field), e))
                       | "GroupByReference" >> beam.GroupByKey()
                       | "Groups" >> beam.MapTuple(lambda _, elements: sorted(elements, key=_element_sort_key))
                       | "Batch" >> DeterministicBatches(lambda g: _element_sort_key(g[0]), self.batch_size,
                                                         salt="bertscore-groups", element_size_fn=len)
                       | "Ungroup" >> beam.Map(lambda groups: [e for g in groups for e in g]))
        else:
            batches = pcoll | "Batch" >> DeterministicBatches(_element_sort_key, self.batch_size, salt="bertscore")
        out = (batches
               | "Score" >> beam.ParDo(_BertScoreBatchFn(
                   self.dataset, self.check, self.model_dir, self.num_layers, self.batch_size)).with_outputs(
                       REJECTS, COUNTS, main="examples"))
        return {"examples": out.examples, "rejects": out[REJECTS], "counts": out[COUNTS]}
