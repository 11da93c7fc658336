"""The records of the project: inputs, outputs and rejects.

One frozen dataclass per record. Output records know:
  * `split_key()`: the stable key hashed for split assignment (document id,
    page id) so that a re-run writes the same shards;
  * `label()`: what the manifest counts them by;
  * `to_row()` / `from_row()`: the row format of the dataset's public release,
    so that existing loaders read our TSVs unchanged;
  * `to_example()` / `from_example()`: `tf.train.Example` bytes (schemas.base).
"""
import dataclasses
import enum
import json
import typing

from schemas.base import Record
from schemas.release import detokenize_punct, strip_citation_placeholders, tokenize_punct

#: Left by the wikitext cleaner (`miners.text.wikitext`) where a template it cannot render sat inside a
#: sentence: a Unicode noncharacter, glued to the word before it. The miners reject a sentence that
#: holds it as `template_hole`; `Reject.make` shows it as `TEMPLATE_HOLE_SHOWN`, and no output record
#: may hold it.
TEMPLATE_HOLE = "\ufdd1"
TEMPLATE_HOLE_SHOWN = "{{\u2026}}"


def without_template_holes(text: str) -> str:
    """`text` without the hole marks: the text the cleaner wrote before it marked holes."""
    return text.replace(TEMPLATE_HOLE, "") if TEMPLATE_HOLE in text else text


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Document(Record):
    """A document of running text: a Wikipedia article, a WET record, a JSONL line.

    `text` is clean plain text, paragraphs separated by a blank line.
    """
    id: str
    text: str
    source: str  # "wikipedia" | "wet" | "jsonl"
    title: str = ""
    url: str = ""
    lang: str = ""
    path: str = ""  # input file it came from


@dataclasses.dataclass(frozen=True)
class SegmentedDocument(Record):
    """A document cut into sentences; `paragraphs[i]` is sentence i's paragraph number."""
    id: str
    source: str
    sentences: typing.Tuple[str, ...]
    paragraphs: typing.Tuple[int, ...]
    path: str = ""


@dataclasses.dataclass(frozen=True)
class Revision(Record):
    """One revision of a page from a pages-meta-history dump."""
    page_id: int
    title: str
    namespace: int
    revision_id: int
    parent_id: int
    timestamp: str
    comment: str
    text: str
    sha1: str = ""
    contributor: str = ""
    minor: bool = False
    path: str = ""


@dataclasses.dataclass(frozen=True)
class SentencePair(Record):
    """Two consecutive sentences brought by the user (`s1 \\t s2` TSV)."""
    id: str
    s1: str
    s2: str
    source: str = "tsv"
    path: str = ""


@dataclasses.dataclass(frozen=True)
class Reject(Record):
    """A dropped input and why. Written as one JSON line under OUTPUT/<dataset>/rejects/."""
    dataset: str
    stage: str  # "read", "segment", "pairs", "filter", ...
    reason: str  # snake_case, e.g. "not_english", "truncated_archive"
    source: str  # input file or source name
    key: str  # document id / URL / line number: where to look
    detail: str = ""  # error message or measured value
    payload: str = ""  # the rejected text, truncated

    MAX_PAYLOAD: typing.ClassVar[int] = 2000

    @classmethod
    def make(cls, dataset, stage, reason, source="", key="", detail="", payload=""):
        payload = str(payload)
        if TEMPLATE_HOLE in payload:
            payload = payload.replace(TEMPLATE_HOLE, TEMPLATE_HOLE_SHOWN)
        return cls(dataset=dataset, stage=stage, reason=reason, source=str(source), key=str(key),
                   detail=str(detail)[:500], payload=payload[:cls.MAX_PAYLOAD])


# --------------------------------------------------------------------------
# Outputs
# --------------------------------------------------------------------------


class OutputRecord(Record):
    RELEASE_COLUMNS: typing.ClassVar[typing.Tuple[str, ...]] = ()
    #: Whether the public release's TSV starts with a header row of RELEASE_COLUMNS.
    RELEASE_HAS_HEADER: typing.ClassVar[bool] = True
    #: Releases of line-aligned files (ParaSCI's `.src` / `.tgt`) instead of one TSV: one file per
    #: column, named by these suffixes (empty: the release is a TSV of RELEASE_COLUMNS).
    RELEASE_FILE_SUFFIXES: typing.ClassVar[typing.Tuple[str, ...]] = ()

    def split_key(self) -> str:
        raise NotImplementedError

    def label(self) -> str:
        raise NotImplementedError

    def to_row(self) -> typing.List[str]:
        raise NotImplementedError

    def shard_key(self) -> str:
        """What places a record in its shard (a hash of it): the record without its model scores
        (SCORE_FIELDS), so that a score's last digit never moves a record to another shard."""
        if not self.SCORE_FIELDS:
            return self.to_json()
        d = self.to_dict()
        for name in self.SCORE_FIELDS:
            d.pop(name, None)
        return json.dumps(d, ensure_ascii=False, sort_keys=True)

    def sort_key(self) -> str:
        """Total order used inside a shard: deterministic bytes on every runner. Records are ordered by
        `shard_key` first, so model scores only break ties between records that agree in everything else."""
        if not self.SCORE_FIELDS:
            return self.to_json()
        return self.shard_key() + "\n" + self.to_json()


@dataclasses.dataclass(frozen=True)
class MarkerExample(OutputRecord):
    """Discovery (Sileo et al., NAACL 2019): s2 began with `marker`, now removed."""
    DATASET: typing.ClassVar[str] = "markers"
    RELEASE_COLUMNS: typing.ClassVar[typing.Tuple[str, ...]] = ("sentence1", "sentence2", "label")

    sentence1: str
    sentence2: str
    label_name: str  # as in the release's marker list: "however", "in_other_words", "truly,"
    marker: str = ""  # the surface string removed from s2, e.g. "In other words,"
    discovered: bool = False  # found as a sentence-initial adverb, not a PDTB seed
    doc_id: str = ""
    sentence_index: int = 0
    source: str = ""

    def split_key(self):
        return self.doc_id

    def label(self):
        return self.label_name

    def to_row(self):
        return [self.sentence1, self.sentence2, self.label_name]

    @classmethod
    def from_row(cls, row):
        return cls(sentence1=row[0], sentence2=row[1], label_name=row[2])


@dataclasses.dataclass(frozen=True)
class SplitExample(OutputRecord):
    """WikiSplit (Botha et al., EMNLP 2018): `complex` was rewritten as `simple1 simple2`."""
    DATASET: typing.ClassVar[str] = "splits"
    RELEASE_COLUMNS: typing.ClassVar[typing.Tuple[str, ...]] = ("complex", "simple")
    RELEASE_HAS_HEADER: typing.ClassVar[bool] = False  # the WikiSplit TSVs have no header row
    SEPARATOR: typing.ClassVar[str] = " <::::> "

    complex: str
    simple1: str
    simple2: str
    page_id: int = 0
    title: str = ""
    revision_before: int = 0
    revision_after: int = 0
    timestamp_before: str = ""
    timestamp_after: str = ""
    direction: str = "forward"  # "forward": complex in the older revision; "backward": in the newer
    bleu1: float = 0.0
    bleu2: float = 0.0
    source: str = ""

    def split_key(self):
        return str(self.page_id)

    def label(self):
        return self.direction

    def to_row(self):
        simple = tokenize_punct(self.simple1) + self.SEPARATOR + tokenize_punct(self.simple2)
        return [tokenize_punct(self.complex), simple]

    @classmethod
    def from_row(cls, row):
        s1, s2 = row[1].split(cls.SEPARATOR.strip(), 1)
        return cls(complex=detokenize_punct(row[0]), simple1=detokenize_punct(s1.strip()),
                   simple2=detokenize_punct(s2.strip()))


class DiscourseType(str, enum.Enum):
    """The 13 `discourse_type` values of the DiscoFuse release (Geva et al. 2019, Table 14)."""
    PAIR_ANAPHORA = "PAIR_ANAPHORA"
    PAIR_CONN = "PAIR_CONN"
    PAIR_CONN_ANAPHORA = "PAIR_CONN_ANAPHORA"
    PAIR_NONE = "PAIR_NONE"
    SINGLE_APPOSITION = "SINGLE_APPOSITION"
    SINGLE_CATAPHORA = "SINGLE_CATAPHORA"
    SINGLE_CONN_INNER = "SINGLE_CONN_INNER"
    SINGLE_CONN_INNER_ANAPHORA = "SINGLE_CONN_INNER_ANAPHORA"
    SINGLE_CONN_START = "SINGLE_CONN_START"
    SINGLE_RELATIVE = "SINGLE_RELATIVE"
    SINGLE_S_COORD = "SINGLE_S_COORD"
    SINGLE_S_COORD_ANAPHORA = "SINGLE_S_COORD_ANAPHORA"
    SINGLE_VP_COORD = "SINGLE_VP_COORD"


@dataclasses.dataclass(frozen=True)
class FusionExample(OutputRecord):
    """DiscoFuse: the coherent text is the fusion target of the two incoherent sentences.

    Text fields are space-tokenized as in the release.
    """
    DATASET: typing.ClassVar[str] = "fusion"
    RELEASE_COLUMNS: typing.ClassVar[typing.Tuple[str, ...]] = (
        "coherent_first_sentence", "coherent_second_sentence", "incoherent_first_sentence",
        "incoherent_second_sentence", "discourse_type", "connective_string",
        "has_coref_type_pronoun", "has_coref_type_nominal")

    coherent_first_sentence: str
    coherent_second_sentence: str
    incoherent_first_sentence: str
    incoherent_second_sentence: str
    discourse_type: DiscourseType
    connective_string: str = ""
    has_coref_type_pronoun: float = 0.0  # the release writes 0.0 / 1.0
    has_coref_type_nominal: float = 0.0
    source: str = ""
    doc_id: str = ""
    sentence_index: int = 0
    rule: str = ""

    def split_key(self):
        return self.doc_id

    def label(self):
        return self.discourse_type.value

    def to_row(self):
        return [self.coherent_first_sentence, self.coherent_second_sentence,
                self.incoherent_first_sentence, self.incoherent_second_sentence,
                self.discourse_type.value, self.connective_string,
                repr(float(self.has_coref_type_pronoun)), repr(float(self.has_coref_type_nominal))]

    @classmethod
    def from_row(cls, row):
        return cls(*row[:6], has_coref_type_pronoun=float(row[6] or 0),
                   has_coref_type_nominal=float(row[7] or 0))


@dataclasses.dataclass(frozen=True)
class SimplificationExample(OutputRecord):
    """SimSim: `simple` is a simplification of `complex`, made by back-translation and simulated edits.

    Release format (WikiLarge-style): `complex \\t simple`, one pair a line, no header.
    The five operation metrics of the SimSim paper (its Figure 1) are stored on the record:
    `alignment` (BERTScore F1 of simple against complex; only meaningful when `has_alignment`:
    the run scored this record), `substitution` (share of the simple
    side's tokens that a simplifying PPDB rule produced; only meaningful when
    `has_substitution_metric`, i.e. the run had PPDB rules), `dropping` (share of complex tokens
    discarded), `reordering` (Jaccard similarity of the two sides' dependency relations) and
    `splitting` (the simple side has more sentences). Dropping, reordering, substitution and
    splitting are only meaningful when `has_operation_metrics` (the run measured this record: every
    s2 / s3 record, a sample of s1).
    """
    DATASET: typing.ClassVar[str] = "simplify"
    RELEASE_COLUMNS: typing.ClassVar[typing.Tuple[str, ...]] = ("complex", "simple")
    RELEASE_HAS_HEADER: typing.ClassVar[bool] = False
    SCORE_FIELDS: typing.ClassVar[typing.Tuple[str, ...]] = ("base_nll", "simple_nll", "alignment")

    complex: str
    simple: str
    method: str  # "back_translation:<pivot>" (s1), "lm_selected:<pivot>" (s2), "simulated:<pivot>" (s3)
    pivot: str = ""
    seed_kind: str = ""  # "text" | "pair" | "pair_misaligned" | "wikisplit"
    operations: typing.Tuple[str, ...] = ()  # "back_translation", "substitution", "dropping", "splitting"
    doc_id: str = ""  # seed document, page or pair id: the split key
    sentence_index: int = 0
    source: str = ""  # input file
    language_model: str = ""
    base_nll: float = 0.0  # mean per-token negative log-likelihood of the seed's base (the text the steps ran on)
    simple_nll: float = 0.0  # the same of `simple` as written
    bleu: float = 0.0
    alignment: float = 0.0  # only meaningful when `has_alignment` (BERTScore ran on this record)
    has_alignment: bool = False
    substitution: float = 0.0
    has_substitution_metric: bool = False
    dropping: float = 0.0
    reordering: float = 0.0
    splitting: bool = False
    has_operation_metrics: bool = False

    def split_key(self):
        return self.doc_id

    def label(self):
        return self.method.partition(":")[0]

    def to_row(self):
        return [self.complex, self.simple]

    @classmethod
    def from_row(cls, row):
        return cls(complex=row[0], simple=row[1], method="")


@dataclasses.dataclass(frozen=True)
class SciParaphraseExample(OutputRecord):
    """ParaSCI: `src` and `tgt` are paraphrases found in scientific papers.

    Release format: line-aligned `.src` / `.tgt` files (line i of one paraphrases line i of the
    other). A pair and its reverse are one pair: `src` is the sentence that comes first in
    (paper id, section, sentence index) order. Citation markers are replaced by `[CITATION]`
    (miners/parasci/papers.py) in the records; the release's `.src` / `.tgt` lines leave them out.
    """
    DATASET: typing.ClassVar[str] = "sci_para"
    RELEASE_COLUMNS: typing.ClassVar[typing.Tuple[str, ...]] = ("src", "tgt")
    RELEASE_HAS_HEADER: typing.ClassVar[bool] = False
    RELEASE_FILE_SUFFIXES: typing.ClassVar[typing.Tuple[str, ...]] = (".src", ".tgt")
    SCORE_FIELDS: typing.ClassVar[typing.Tuple[str, ...]] = ("similarity", "bertscore", "paraphrase_probability")

    src: str
    tgt: str
    method: str  # "intra_paper" | "partial" | "definition" | "same_citation"
    paper_id: str = ""
    other_paper_id: str = ""
    section: str = ""  # canonical section of src
    other_section: str = ""
    field: str = ""  # subject of paper_id: a normalised field of study (miners/parasci/papers/subjects.py), "" unknown
    group: str = ""  # the defined term or the cited paper's key (cross-paper methods)
    source: str = ""  # input file of paper_id
    similarity: float = 0.0  # cosine similarity of the sentence embeddings
    bertscore: float = 0.0  # BERTScore F1
    length_rate: float = 0.0  # paraphrase length rate |la - lb| / min(la, lb), in words
    bleu: float = 0.0  # sentence BLEU of tgt against src
    paraphrase_probability: float = 0.0  # the decision's P(paraphrase) (miners/parasci/decision.py)

    def split_key(self):
        return self.paper_id

    def label(self):
        return self.method

    def to_row(self):
        # The release's lines carry no citation marker (ParaSCI-ACL: "liu et al proposed ..."); the
        # TFRecords keep the placeholder in src / tgt.
        return [strip_citation_placeholders(self.src), strip_citation_placeholders(self.tgt)]

    @classmethod
    def from_row(cls, row):
        return cls(src=row[0], tgt=row[1], method="")


OUTPUT_RECORDS = {cls.DATASET: cls for cls in (MarkerExample, SplitExample, FusionExample, SimplificationExample,
                                                SciParaphraseExample)}


# --------------------------------------------------------------------------
# Dataset names: the base name of a record (`markers`) and the language of a run
# --------------------------------------------------------------------------

#: The language whose datasets keep the base name (`markers`, not `markers-en`): English runs
#: write exactly what they wrote before the language was part of the name (issue 33).
UNSUFFIXED_LANGUAGE = "en"


def dataset_name(base: str, language: str = "") -> str:
    """The name of a run's dataset: its folder, shard prefix, manifest and card name.

    `base` (a record's DATASET, e.g. "markers") in English and when no language is given;
    `<base>-<language>` otherwise ("markers-uk", "splits-ja", "fusion-be-tarask"). Base names hold no
    hyphen ("sci_para"), so the first hyphen always separates the base from the language.
    """
    language = (language or "").strip().lower()
    if not language or language == UNSUFFIXED_LANGUAGE:
        return base
    return f"{base}-{language}"


def base_dataset(name: str) -> str:
    """The base dataset of a name (`markers-uk` -> `markers`): the key of every per-dataset table
    (OUTPUT_RECORDS, the TFDV schema, the quality configs, the card texts)."""
    return name.split("-", 1)[0]


def dataset_language(name: str) -> str:
    """The language a dataset name carries ("" for a base name: English)."""
    return name.split("-", 1)[1] if "-" in name else ""


def tfds_name(name: str) -> str:
    """The TensorFlow Datasets builder name of a dataset: TFDS names are identifiers
    (`[a-zA-Z][a-zA-Z0-9_]*`), so `markers-uk` is `markers_uk`; base names are unchanged."""
    return name.replace("-", "_")


def reject_from_json(line: str) -> Reject:
    return Reject.from_dict(json.loads(line))
