"""Shared fixtures: paths to the bundled real samples and an in-process Beam runner."""
import os
import pathlib

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach a model hub from a test
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
ENWIKI = SAMPLES / "wikipedia" / "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
BGWIKI = SAMPLES / "wikipedia" / "bgwiki-latest-pages-articles-shortened.xml.bz2"
ENWIKI_TABLES = SAMPLES / "wikipedia" / "enwiki-table-markup.xml.bz2"
SHARED_DATA = ROOT.parent / "shared" / "data"
#: Small real excerpts of non-English Wikipedia dumps and UD treebanks (tools/make_language_excerpts.py;
#: attribution in tests/testdata/languages/SOURCES.md).
LANGUAGE_DATA = ROOT / "tests" / "testdata" / "languages"


def bundled_wiki(lang: str) -> pathlib.Path:
    """The bundled excerpt of `lang`'s Wikipedia (uk, vi, ja, el, bn, hy, mr, zh): the dump's own header
    and its first few articles."""
    found = sorted(LANGUAGE_DATA.glob(f"{lang}wiki-*-small.xml.bz2"))
    if len(found) != 1:
        raise FileNotFoundError(f"no bundled {lang} excerpt in {LANGUAGE_DATA}")
    return found[0]


@pytest.fixture(scope="session")
def enwiki_path():
    return str(ENWIKI)


@pytest.fixture(scope="session")
def bgwiki_path():
    return str(BGWIKI)


def in_process_pipeline():
    """A Beam pipeline on the in-process portable runner (never the network)."""
    import apache_beam as beam
    from apache_beam.runners.portability.fn_api_runner import FnApiRunner
    return beam.Pipeline(runner=FnApiRunner())
