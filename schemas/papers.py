"""Scientific papers as the ParaSCI miner reads them, whatever format they came in.

A `Paper` is what `miners/parasci/papers.py` makes of one S2ORC JSON object (2019,
2020 or 2021 release form, or doc2json output), one GROBID TEI file or one
JATS file: its id, title, its subject (a normalised field of study) for grouping, and its paragraphs,
each with a canonical section name. Citation markers (`[12]`,
`(Smith et al., 2019; Jones, 2020)`) are replaced in the paragraph text by
`CITATION_PLACEHOLDER`: one placeholder per citation group (a run of markers
with only brackets and separators between them). `cite_keys` lists the papers
cited in the paragraph (the cited paper's id where the source links it,
otherwise its normalised title and year, "" when the reference is unknown) and
`cite_slots[j]` is the number (0-based) of the placeholder that cites
`cite_keys[j]`.

These are intermediate records (pickled between pipeline stages), never
written as `tf.train.Example`s.
"""
import dataclasses
import typing

from schemas.base import Record

#: What a citation marker becomes in the text (and in the ParaSCI output).
CITATION_PLACEHOLDER = "[CITATION]"

#: Canonical section names (ParaSCI §3.1 mines abstract, introduction, background, discussion,
#: preamble and conclusion; the others are kept for definitions and citations).
SECTIONS = ("abstract", "introduction", "background", "method", "data", "experiments", "results",
            "discussion", "conclusion", "preamble", "other")


@dataclasses.dataclass(frozen=True)
class PaperParagraph(Record):
    """One paragraph: canonical section, the heading as written, text with placeholders."""
    section: str  # one of SECTIONS
    heading: str
    text: str
    cite_keys: typing.Tuple[str, ...] = ()  # cited papers, in order of appearance
    cite_slots: typing.Tuple[int, ...] = ()  # cite_keys[j] is cited by placeholder number cite_slots[j]


@dataclasses.dataclass(frozen=True)
class Paper(Record):
    """One scientific paper.

    Attributes:
      id: the source's paper id (S2ORC paper_id, a DOI, a PMC id) or, when it has none, a
        stable hash of the normalised title.
      title: as written.
      field: the subject, a normalised field of study (miners/parasci/papers/subjects.py; ParaSCI groups
        definitions by it), never a venue string; "" when the source names none.
      year: publication year, 0 when unknown.
      source: "s2orc" | "doc2json" | "grobid_tei" | "jats".
      path: the input file.
      paragraphs: in document order; the abstract first when the source has one.
      title_key: normalised title (lower case, letters and digits): the same paper read from two
        formats has the same key.
    """
    id: str
    title: str
    field: str
    year: int
    source: str
    path: str
    paragraphs: typing.Tuple[PaperParagraph, ...]
    title_key: str = ""


@dataclasses.dataclass(frozen=True)
class PaperSentence(Record):
    """One sentence of a paper, with what the candidate finders need to know about it."""
    paper_id: str
    index: int  # sentence number in the paper
    section: str
    text: str  # with CITATION_PLACEHOLDER where a citation was
    cite_keys: typing.Tuple[str, ...] = ()  # papers cited in this sentence (unknown ones left out)
    field: str = ""
    path: str = ""
    # The normalised term the sentence defines (its long form where the paper expands an
    # abbreviation: "NER" -> "named entity recognition"); "" when it is no definition.
    term: str = ""
