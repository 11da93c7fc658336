"""miners.parasci.papers: S2ORC (2019, 2020, 2021, doc2json), GROBID TEI and JATS papers read from real files.

The bundled papers (samples/scientific, copied from ../shared/data/scientific) are read
with exact expectations; the whole shared set, when present, must read into papers; the
broken files of tests/testdata/scientific give one reason each.
"""
import collections
import glob
import gzip
import io
import json
import os
from xml.etree import ElementTree

import pytest

from miners.parasci import papers as mp
from miners.parasci.papers import subjects
from miners.parasci.pairs import paper_sentences
from miners.text.segmenter import split_sentences
from schemas.papers import CITATION_PLACEHOLDER, SECTIONS, Paper
from schemas.records import Reject
from tests.conftest import ROOT, SHARED_DATA

SAMPLES = ROOT / "samples" / "scientific"
BROKEN = ROOT / "tests" / "testdata" / "scientific"
SHARED = SHARED_DATA / "scientific"
P = CITATION_PLACEHOLDER


def read(path, **kw):
    counts = collections.Counter()
    out = list(mp.iter_papers(str(path), str(path), "test", lambda k, n=1: counts.update({k: n}), **kw))
    return out, counts


def one_paper(path) -> Paper:
    out, counts = read(path)
    assert [type(r) for r in out] == [Paper], out
    assert counts == {"read/records": 1, "read/papers": 1}
    return out[0]


def para_with(paper, needle):
    return next(p for p in paper.paragraphs if needle in p.text)


def check_paper_invariants(paper: Paper):
    assert paper.id and paper.paragraphs
    for p in paper.paragraphs:
        assert p.section in SECTIONS
        assert p.text == p.text.strip() and "  " not in p.text
        assert len(p.cite_keys) == len(p.cite_slots)
        n = p.text.count(P)
        assert all(0 <= s < n for s in p.cite_slots)
        assert list(p.cite_slots) == sorted(p.cite_slots)
        for k in p.cite_keys:
            assert k == "" or k.startswith("s2:") or k.startswith("title:")


# ---------------------------------------------------------------- headings, keys

@pytest.mark.parametrize("heading,section", [
    ("1 Introduction", "introduction"), ("INTRODUCTION", "introduction"), ("Introducción", "introduction"),
    ("2. Related Work", "background"), ("II. PRELIMINARIES", "background"),
    ("Background: Pretrained Transformers", "background"), ("Methods", "method"),
    ("MATERIALS AND METHODS", "method"), ("Model 2.1 Overview", "method"), ("Datasets", "data"),
    ("Data collection", "data"), ("Experimental Setup", "experiments"), ("4 Experiments", "experiments"),
    ("Evaluation", "experiments"), ("5 Results", "results"), ("RESULTS AND DISCUSSION", "results"),
    ("Discussion", "discussion"), ("Conclusions and Future Work", "conclusion"), ("V. CONCLUSION", "conclusion"),
    ("Conclusiones", "conclusion"), ("Abstract", "abstract"), ("Acknowledgements", "other"),
    ("Node Types", "other"), ("", "other"),
])
def test_canonical_section(heading, section):
    assert mp.canonical_section(heading) == section


def test_numbered_subsection_takes_its_parents_section_and_headless_paragraphs():
    t = mp._SectionTracker()
    assert t.section("") == ("preamble", "")
    assert t.section("Experiments", "3") == ("experiments", "Experiments")
    assert t.section("Document Classification", "3.1") == ("experiments", "Document Classification")
    assert t.section("") == ("experiments", "Document Classification")  # a headless div continues
    assert t.section("2.1 Node Types") == ("other", "2.1 Node Types")  # parent 2 unknown


def test_title_and_citation_keys():
    assert mp.title_key("SciBERT: A Pretrained  Language-Model!") == "scibert a pretrained language model"
    assert mp.citation_key("7229756", "whatever", 2012) == "s2:7229756"
    assert mp.citation_key(None, "Cancer Statistics", 2012) == "title:cancer statistics|2012"
    assert mp.citation_key(None, "Cancer statistics", "") == "title:cancer statistics|0"
    assert mp.citation_key(None, "", 2012) == ""


# ---------------------------------------------------------------- citation groups

def spans_of(text, *markers, keys=None):
    out, pos = [], 0
    for i, m in enumerate(markers):
        s = text.index(m, pos)
        out.append((s, s + len(m), keys[i] if keys else f"k{i}"))
        pos = s + len(m)
    return out


@pytest.mark.parametrize("text,markers,expected,slots", [
    ("as shown [3, 4]. Next", ("3", "4"), f"as shown {P}. Next", (0, 0)),
    ("as shown [3], [4] and more", ("[3]", "[4]"), f"as shown {P} and more", (0, 0)),
    ("LMs (Smith et al., 2019; Lee, 2020) do", ("(Smith et al., 2019;", "Lee, 2020)"), f"LMs {P} do", (0, 0)),
    # GROBID left the group's ")" out of its last marker.
    ("embeddings (Tu et al., 2017;) have", ("(Tu et al., 2017;",), f"embeddings {P} have", (0,)),
    # ... or lost it altogether.
    ("models (Radford et al., 2018;Devlin et al., 2019;. While", ("(Radford et al., 2018;", "Devlin et al., 2019;"),
     f"models {P}. While", (0, 0)),
    # The ")" closes the sentence's "(e.g., ": it stays.
    ("libraries (e.g., Wu et al., 2014), researchers", ("Wu et al., 2014)",), f"libraries (e.g., {P}), researchers",
     (0,)),
    # Words between markers: two groups.
    ("as Smith (2019) and Lee (2020) say", ("Smith (2019)", "Lee (2020)"), f"as {P} and {P} say", (0, 1)),
])
def test_replace_citations_one_placeholder_per_group(text, markers, expected, slots):
    out, keys, got_slots = mp.replace_citations(text, spans_of(text, *markers))
    assert out == expected
    assert keys == tuple(f"k{i}" for i in range(len(markers)))
    assert got_slots == slots


def test_replace_citations_slots_ranges_and_repeats():
    text = "A [1]. B [2]-[4] and [2]. C."
    spans = spans_of(text, "[1]", "[2]", "[4]", "[2]", keys=["a", "b", "d", "b"])
    out, keys, slots = mp.replace_citations(text, spans, range_keys=lambda x, y: ["c"] if (x, y) == ("b", "d") else [])
    assert out == f"A {P}. B {P} and {P}. C."
    assert keys == ("a", "b", "c", "d", "b")
    assert slots == (0, 1, 1, 1, 2)


def test_replace_citations_ignores_bad_spans():
    out, keys, slots = mp.replace_citations("short", [(3, 99, "x"), (-1, 2, "y")])
    assert (out, keys, slots) == ("short", (), ())


# ---------------------------------------------------------------- every form, real files

def test_s2orc_2019_form():
    paper = one_paper(SAMPLES / "s2orc" / "20190928-10045593.json")
    check_paper_invariants(paper)
    assert (paper.id, paper.source, paper.year) == ("10045593", "s2orc", 2016)
    assert paper.title == "Postmortem muscle protein degradation in humans as a tool for PMI delimitation"
    assert paper.field == ""  # its metadata names a journal, no field of study: no subject, not the venue
    assert paper.title_key == "postmortem muscle protein degradation in humans as a tool for pmi delimitation"
    # grobid_parse paragraphs carry no section in this release: abstract, then unknown ("other", not
    # "preamble": the body's Method and Results text must stay out of the intra-paper search).
    assert [p.section for p in paper.paragraphs] == ["abstract"] + ["other"] * 14
    p = para_with(paper, "One of the most important questions at a crime scene")
    assert "postmortem interval (PMI) [CITATION]." in p.text
    # bib_entries' `links` are S2 paper ids; BIBREF3/4 are unlinked: title + year.
    assert p.cite_keys[:5] == ("s2:42680165", "s2:73119687", "s2:42002356",
                               "title:experiences with a compound method for estimating the time since death ii "
                               "integration of non temperature based methods|2000",
                               "title:experiences with a compound method for estimating the time since death i "
                               "rectal temperature nomogram for time since death|2000")
    assert p.cite_slots[:6] == (0, 1, 2, 2, 2, 3)
    assert "[1]" not in p.text and "[2]" not in p.text


def test_s2orc_2020_form_and_jsonl_gz_shard():
    paper = one_paper(SAMPLES / "s2orc" / "20200705-18980380.json")
    check_paper_invariants(paper)
    assert (paper.id, paper.title, paper.year, paper.title_key) == ("18980380", "", 0, "")
    assert [p.section for p in paper.paragraphs[:3]] == ["abstract", "abstract", "preamble"]
    assert ("background", "II. PRELIMINARIES") in {(p.section, p.heading) for p in paper.paragraphs}
    p = para_with(paper, "We highlight our contributions")
    assert p.text.startswith(f"We highlight our contributions by comparing with {P}. In {P} the state-wise")
    assert p.cite_keys == ("s2:7229756", "s2:7229756", "s2:16625241") and p.cite_slots == (0, 1, 2)

    out, counts = read(SAMPLES / "s2orc" / "20200705-pdf_parses-sample.jsonl.gz")
    assert [r.id for r in out] == ["18980463", "94551546"]
    assert counts == {"read/records": 2, "read/papers": 2}
    p = para_with(out[0], "Recently, substantial progress")
    assert p.cite_keys == ("s2:40199283", "s2:6921311", "s2:4426584") and p.cite_slots == (0, 0, 1)
    assert "(Wernet and Desplan 2004" not in p.text
    gene = para_with(out[1], "Gene therapy holds potential")
    assert gene.text.startswith(f"Gene therapy holds potential for treating many severe diseases, such as cancer "
                                f"and genetic diseases. {P} Successful")
    assert gene.cite_keys[0] == "title:cancer statistics|2012"  # its bib entry has link null


def test_s2orc_2021_form():
    paper = one_paper(SAMPLES / "s2orc" / "20210101-24e6b80e338a4e543de6b49cada07156c9149d22.json")
    check_paper_invariants(paper)
    assert paper.id == "24e6b80e338a4e543de6b49cada07156c9149d22" and paper.year == 2011
    assert paper.title.startswith("Niche Partitioning of Marine Group I Crenarchaeota")
    assert list(dict.fromkeys(p.section for p in paper.paragraphs)) == [
        "abstract", "preamble", "method", "results", "discussion"]
    p = para_with(paper, "Microbes are the most abundant")
    assert f"element cycling {P}. Determining" in p.text  # "(14, 28)": two spans, one placeholder
    assert p.cite_slots[:2] == (0, 0)
    assert p.cite_keys[0] == "title:microbial community structure and its functional implications|2009"


def test_doc2json_and_grobid_tei_of_the_same_pdf():
    d2j = one_paper(SAMPLES / "s2orc" / "pdf-N18-3011.json")
    tei = one_paper(SAMPLES / "grobid-tei" / "N18-3011.tei.xml")
    for paper in (d2j, tei):
        check_paper_invariants(paper)
        assert paper.title == "Construction of the Literature Graph in Semantic Scholar"
        assert paper.title_key == "construction of the literature graph in semantic scholar"
        # Both get the title's hash as id (doc2json's own paper_id is the file name cut at a dot).
        assert paper.id == mp._stable_id(paper.title, ()) and paper.id.startswith("sha1:")
        secs = list(dict.fromkeys(p.section for p in paper.paragraphs))
        assert secs[:2] == ["abstract", "introduction"] and "conclusion" in secs and "method" in secs
        p = para_with(paper, "The goal of this work is to facilitate")
        assert "(e.g., [CITATION])" in p.text and "Wu et al." not in p.text
        assert p.cite_keys == ("title:citeseerx ai in a digital library search engine|2014",)
    assert (d2j.source, tei.source) == ("doc2json", "grobid_tei")
    # "4.2 Entity Extraction Models": its parent "4 Entity Extraction and Linking" is other, its own heading method.
    assert ("method", "Entity Extraction Models") in {(p.section, p.heading) for p in tei.paragraphs}


def test_jats():
    paper = one_paper(SAMPLES / "jats" / "PMC5828200.nxml")
    check_paper_invariants(paper)
    # Its only <subj-group> is the article type ("Research Paper"): no subject (not "Oncotarget").
    assert (paper.id, paper.source, paper.field, paper.year) == ("PMC5828200", "jats", "", 2018)
    assert paper.title.startswith("Curcuminoid submicron particle ameliorates cognitive deficits")
    assert list(dict.fromkeys(p.section for p in paper.paragraphs)) == [
        "abstract", "introduction", "results", "discussion", "method"]
    # Subsections of MATERIALS AND METHODS stay method ("Statistical analysis" included).
    assert {p.section for p in paper.paragraphs if p.heading == "Statistical analysis"} == {"method"}
    p = para_with(paper, "Alzheimer's disease (AD) is the most common form")
    assert f"play the major pathogenic role in AD {P}. Overexpression" in p.text  # "[1, 2]"
    assert p.cite_keys[:2] == ("title:mass spectrometry of purified amyloid beta protein in alzheimer s disease|1992",
                               "title:amyloid beta protein abeta assembly abeta 40 and abeta 42 oligomerize "
                               "through distinct pathways|2003")
    assert p.cite_slots[:3] == (0, 0, 1)


JATS_IDS = """<?xml version="1.0"?>
<article><front><article-meta>{ids}<title-group><article-title>Sea ice in a warming Arctic</article-title>
</title-group></article-meta></front><body><sec><title>Introduction</title><p>Sea ice covers the Arctic Ocean
for most of the year. Its extent has shrunk in every decade since 1979.</p></sec></body></article>
"""


@pytest.mark.parametrize("ids, expected", [
    # Europe PMC's files name the PubMed Central id `pmcid` (the reader knew only PMC's `pmc`: a sha1: id)
    ('<article-id pub-id-type="pmcid">PMC6398430</article-id><article-id pub-id-type="doi">10.1/x</article-id>',
     "PMC6398430"),
    ('<article-id pub-id-type="pmc">6398430</article-id>', "PMC6398430"),
    ('<article-id pub-id-type="doi">10.1/x</article-id><article-id pub-id-type="pmid">30840594</article-id>',
     "pmid:30840594"),
    ('<article-id pub-id-type="doi">10.7554/eLife.1</article-id><article-id pub-id-type="publisher-id">1'
     '</article-id>', "doi:10.7554/eLife.1"),
])
def test_jats_article_id_prefers_pmcid_then_pmid_then_doi(tmp_path, ids, expected):
    path = tmp_path / "a.nxml"
    path.write_text(JATS_IDS.format(ids=ids), encoding="utf-8")
    assert one_paper(path).id == expected


@pytest.mark.skipif(not (SHARED / "jats" / "PMC7417471.nxml").exists(), reason="../shared/data not present")
def test_jats_dash_range_cites_the_references_between():
    paper = one_paper(SHARED / "jats" / "PMC7417471.nxml")
    p = para_with(paper, "electrochemical biosensors [CITATION], fluorescent")
    # "[3–5]": R3, R4 and R5 in one placeholder.
    slot_of = collections.defaultdict(list)
    for k, s in zip(p.cite_keys, p.cite_slots):
        slot_of[s].append(k)
    assert len(slot_of[2]) == 3


@pytest.mark.skipif(not SHARED.exists(), reason="../shared/data/scientific not present")
def test_every_shared_file_reads_into_papers():
    files = sorted(f for f in glob.glob(str(SHARED / "**" / "*"), recursive=True)
                   if os.path.isfile(f) and not f.endswith(".md"))
    assert len(files) == 29  # 15 + the 14 eLife articles of jats-elife/
    by_source = collections.Counter()
    for f in files:
        paper = one_paper(f)
        check_paper_invariants(paper)
        by_source[paper.source] += 1
        assert any(p.cite_keys for p in paper.paragraphs)
    assert by_source == {"s2orc": 8, "doc2json": 2, "grobid_tei": 2, "jats": 17}


def test_paper_sentences_get_the_keys_of_their_placeholders():
    paper = one_paper(SAMPLES / "s2orc" / "20200705-18980380.json")
    sents = paper_sentences(paper, split_sentences)
    first = next(s for s in sents if s.text.startswith("We highlight our contributions"))
    assert first.cite_keys == ("s2:7229756",)


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("name,expected", [
    ("truncated.jsonl.gz", ["paper:18980463", "truncated_archive@line 2"]),
    ("malformed.tei.xml", ["bad_xml"]),
    ("broken_utf8.nxml", ["broken_utf8"]),
    ("not_a_paper.json", ["not_a_paper"]),
    ("not_xml_paper.xml", ["not_a_paper"]),
    ("no_body_text.json", ["no_body_text"]),
    ("binary.dat", ["unknown_format"]),
    ("mixed.jsonl", ["paper:18980380", "bad_json@line 3", "not_a_paper@line 4", "not_a_paper@line 5",
                     "broken_utf8@line 6"]),
])
def test_bad_inputs_are_rejects_with_reasons(name, expected):
    out, counts = read(BROKEN / name)
    got = []
    for r in out:
        if isinstance(r, Paper):
            got.append(f"paper:{r.id}")
        else:
            assert isinstance(r, Reject) and r.stage == "read" and r.source == str(BROKEN / name)
            got.append(r.reason if r.key == str(BROKEN / name) else f"{r.reason}@{r.key}")
    assert got == expected
    filtered = sum(n for k, n in counts.items() if k.startswith("read/filtered:"))
    assert counts["read/records"] == counts["read/papers"] + filtered


def test_too_large_file_and_json_line():
    path = SAMPLES / "jats" / "PMC5828200.nxml"
    out, counts = read(path, max_paper_bytes=10_000)
    assert [r.reason for r in out] == ["too_large"]
    lines = [json.dumps({"paper_id": "a", "body_text": [{"text": "x " * 6000, "section": ""}]}),
             json.dumps({"paper_id": "b", "body_text": [{"text": "A short paper body.", "section": "Intro"}]})]
    data = ("\n".join(lines) + "\n").encode()
    out = list(mp.iter_papers(io.BytesIO(gzip.compress(data)), "x.jsonl.gz", "t", max_paper_bytes=10_000))
    assert [getattr(r, "reason", None) or r.id for r in out] == ["too_large", "b"]
    assert out[1].paragraphs[0].section == "introduction"


def test_empty_file_and_json_that_is_no_object(tmp_path):
    (tmp_path / "empty.json").write_bytes(b"")
    (tmp_path / "list.json").write_text('[\n  {"paper_id": "x"}\n]\n')
    assert [r.reason for r in read(tmp_path / "empty.json")[0]] == ["no_body_text"]
    assert [r.reason for r in read(tmp_path / "list.json")[0]] == ["not_a_paper"]


def test_s2orc_records_with_merged_metadata_and_latex_parse():
    body = [{"text": "We follow [1].", "section": "1 Introduction",
             "cite_spans": [{"start": 10, "end": 13, "text": "[1]", "ref_id": "BIBREF0"}]}]
    bib = {"BIBREF0": {"title": "Attention Is All You Need", "year": 2017, "link": None}}
    # 2020 pdf_parses record merged with its metadata line (title, year, mag_field_of_study).
    paper = mp.paper_from_s2orc({"paper_id": "77", "title": "A Paper", "year": 2020,
                                 "mag_field_of_study": ["Computer Science"], "abstract": [],
                                 "body_text": body, "bib_entries": bib}, "x.jsonl")
    assert (paper.id, paper.title, paper.year, paper.field, paper.source) == (
        "77", "A Paper", 2020, "computer science", "s2orc")
    assert paper.paragraphs[0].text == f"We follow {P}."
    assert paper.paragraphs[0].cite_keys == ("title:attention is all you need|2017",)
    # 2019 release: latex_parse is preferred when it has text; `links` is the S2 id.
    latex_bib = {"BIBREF0": {"title": "Attention Is All You Need", "year": 2017, "links": "13756489"}}
    paper = mp.paper_from_s2orc({"paper_id": "78", "metadata": {"title": "B", "year": "2019", "venue": "ACL"},
                                 "grobid_parse": {"abstract": [], "body_text": [{"text": "GROBID text."}]},
                                 "latex_parse": {"abstract": [], "body_text": body, "bib_entries": latex_bib}},
                                "y.json")
    assert [p.text for p in paper.paragraphs] == [f"We follow {P}."]
    assert paper.paragraphs[0].section == "introduction" and paper.field == "" and paper.year == 2019
    assert paper.paragraphs[0].cite_keys == ("s2:13756489",)


# ---------------------------------------------------------------- subjects (issue 16): a field, not a venue

@pytest.mark.parametrize("raw, field", [
    ("Developmental Biology and Stem Cells", "biology"), ("Neuroscience", "biology"),
    ("Epidemiology and Global Health", "medicine"), ("Computer Science", "computer science"),
    ("cs.CL", "computer science"), ("hep-th/9901001", "physics"), ("arXiv:1810.04805v2 [cs.CL]", "computer science"),
    ("Materials Science", "materials science"), ("Research article", ""), ("Original Articles", ""),
    ("Tools and Resources", ""), ("Underwater basket weaving", "underwater basket weaving"),
])
def test_normalise_subject(raw, field):
    assert subjects.normalise_subject(raw) == field


def test_subject_per_format_on_the_shared_files():
    # JATS (eLife): the "heading" subject, not the article type ("Research article") nor the journal.
    elife = one_paper(SHARED_DATA / "scientific" / "jats-elife" / "elife-02833-v2.xml")
    assert elife.field == "biology"  # <subject>Developmental Biology and Stem Cells</subject>
    assert one_paper(SHARED_DATA / "scientific" / "jats-elife" / "elife06003.xml").field == "biology"  # Cell biology
    # JATS (PMC): the headings are article types: no subject rather than "Oncotarget".
    assert one_paper(SHARED_DATA / "scientific" / "jats" / "PMC6398430.nxml").field == ""
    # S2ORC 2019: venue and journal only -> no subject; the same record with its field of study, or an
    # ACL Anthology id, has one.
    path = SHARED_DATA / "scientific" / "s2orc" / "20190928-10002293.json"
    obj = json.loads(path.read_text(encoding="utf-8"))
    assert obj["metadata"]["venue"] == "Frontiers in microbiology" and one_paper(path).field == ""
    with_field = dict(obj, metadata=dict(obj["metadata"], mag_field_of_study=["Biology", "Medicine"]))
    assert mp.paper_from_s2orc(with_field, str(path)).field == "biology"
    s2 = dict(obj, s2_fields_of_study=[{"category": "Medicine", "source": "s2-fos-model"}])
    assert mp.paper_from_s2orc(s2, str(path)).field == "medicine"
    acl = dict(obj, metadata=dict(obj["metadata"], acl_id="N18-3011"))
    assert mp.paper_from_s2orc(acl, str(path)).field == "computer science"
    # GROBID TEI: the shared files' headers carry no class code, arXiv id or ACL DOI -> no subject (the
    # venue was never the field); a header with an arXiv id and its category has one.
    tei_path = SHARED_DATA / "scientific" / "grobid-tei" / "N18-3011.tei.xml"
    assert one_paper(tei_path).field == ""
    text = tei_path.read_text(encoding="utf-8").replace(
        "<monogr>", '<idno type="arXiv">arXiv:1805.02262v1 [cs.CL]</idno><monogr>', 1)
    assert "arXiv:1805.02262" in text
    assert mp.paper_from_tei(ElementTree.fromstring(text.encode("utf-8")), str(tei_path)).field == "computer science"
