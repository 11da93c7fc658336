"""The annotated-document structure shared by every annotator backend and rule.

Labels are Universal Dependencies v2 (`upos`, `deprel` with subtypes such as
`acl:relcl`, `nsubj:pass`, `nmod:poss`) whatever parser produced them, so the
DiscoFuse rules (miners/discofuse/rules.py) are written once. Token heads are 0-based
indices inside their sentence, -1 for the root. Coreference chains hold
mentions as token spans `[start, end)` of one sentence.
"""
import dataclasses
import typing

from schemas.base import Record

COREF_NONE = "none"
COREF_BUILTIN = "builtin"  # miners.discofuse.coref: conservative third-person pronoun resolver
COREF_ANNOTATOR = "annotator"  # the backend's own coreference (stanza coref)


@dataclasses.dataclass(frozen=True)
class Token(Record):
    text: str
    lemma: str
    upos: str
    xpos: str  # Penn Treebank tag
    head: int  # 0-based index in the sentence, -1 for the root
    deprel: str  # UD v2
    ner: str = "O"  # BIO: "B-PERSON", "I-ORG", "O"
    #: UD morphological features ("Gender=Fem|Number=Sing"), "" when the backend gives none. The
    #: French rules read gender and number from them (miners/discofuse/french.py); English's read xpos.
    feats: str = ""


@dataclasses.dataclass(frozen=True)
class Mention(Record):
    sentence: int
    start: int
    end: int  # exclusive


@dataclasses.dataclass(frozen=True)
class CorefChain(Record):
    """Mentions of one entity; `representative` indexes `mentions` (the antecedent to copy)."""
    mentions: typing.Tuple[Mention, ...]
    representative: int = 0
    source: str = COREF_BUILTIN


@dataclasses.dataclass(frozen=True)
class Sentence(Record):
    """One sentence. `parsed` is False when the pre-check skipped it (tokens carry text only)."""
    tokens: typing.Tuple[Token, ...]
    parsed: bool = True

    # --- tree helpers -----------------------------------------------------
    def words(self) -> typing.List[str]:
        return [t.text for t in self.tokens]

    def text(self) -> str:
        return " ".join(t.text for t in self.tokens)

    def children(self, i: int) -> typing.List[int]:
        return [j for j, t in enumerate(self.tokens) if t.head == i]

    def root(self) -> int:
        for j, t in enumerate(self.tokens):
            if t.head == -1:
                return j
        return -1

    def subtree(self, i: int, exclude: typing.Iterable[int] = ()) -> typing.List[int]:
        """Sorted indices of the subtree of `i`, leaving out the subtrees rooted at `exclude`."""
        excluded = set(exclude)
        out, stack = [], [i]
        while stack:
            k = stack.pop()
            if k in excluded:
                continue
            out.append(k)
            stack.extend(self.children(k))
        return sorted(out)

    def span_text(self, start: int, end: int) -> str:
        return " ".join(t.text for t in self.tokens[start:end])


@dataclasses.dataclass(frozen=True)
class AnnotatedDocument(Record):
    id: str
    source: str
    sentences: typing.Tuple[Sentence, ...]
    paragraphs: typing.Tuple[int, ...]
    chains: typing.Tuple[CorefChain, ...] = ()
    coref: str = COREF_NONE  # which coreference produced `chains`
    annotator: str = ""
    path: str = ""
    #: Sentences where the wikitext cleaner left a template hole (`schemas.records.TEMPLATE_HOLE`):
    #: annotated from their text without the mark (so the others' annotation is unchanged), never
    #: mined (`miners.discofuse.rules.mine_document` drops them as `template_hole`).
    template_holes: typing.Tuple[int, ...] = ()


def unparsed_sentence(words: typing.Sequence[str]) -> Sentence:
    """A sentence the pre-check skipped: tokens with text only (no rule reads more)."""
    return Sentence(tokens=tuple(Token(w, w, "X", "", -1, "dep") for w in words), parsed=False)
