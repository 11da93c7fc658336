"""Every `rewrite-mine <job>` command the README and docs/RUNNERS.md show still parses and builds its job.

The README's own `rewrite-mine all --preset sample ...` example once stopped before reading anything
(`--variants: unknown ['adv', 'base', ...]; choose from s1,s2,s3`: discovery and simsim shared one option),
and no test ran it (issue 32). Here each command is read out of the documents' code blocks (continuation
lines joined), its options parsed by the job's own parser (an unknown option, choice or preset fails), and
its whole pipeline built, as the run would build it, with the local runner: every check a job makes of its
options while building (variants, engines, thresholds) runs. Nothing is run on the data.

Inputs the command names that are not here (a whole dump, `gs://`, `hdfs://`, a user's own files) are
replaced by real files of the same kind and name pattern: the bundled enwiki excerpt for articles, an edit
history built from it for histories, the bundled papers, WET / JSON lines / pair files made from real
sentences. The runner options (`--runner DataflowRunner`, `flink`, ...) are parsed, then the local runner
builds: the engines' own tests run jobs on them (test_engines.py, test_dataflow_graph.py). Commands with
a placeholder (`...`, `<dataset>`) cannot be parsed and are listed as skipped.
"""
import glob
import gzip
import os
import re
import shlex
import shutil
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "framework"))
import test_runners as h  # noqa: E402  pylint: disable=wrong-import-position

from conftest import ENWIKI, ROOT  # noqa: E402
from tests.testdata.readers import build as readers  # noqa: E402

DOCS = ("README.md", "docs/RUNNERS.md")
INPUT_FLAGS = ("--input", "--history_input", "--papers_input", "--simplification_input")
PATH_FLAGS = ("--ppdb",)  # options naming a file a command needs to build
SENTENCES = [("The valley is narrow.", "However, the town grew quickly."),
             ("Space is limited due to the steep valleys.", "In fact, flat land is rare.")]


def documented_commands():
    """(document, line number, command) of every `rewrite-mine` command in a fenced code block."""
    out = []
    for doc in DOCS:
        lines = (ROOT / doc).read_text(encoding="utf-8").splitlines()
        fenced, i = False, 0
        while i < len(lines):
            line = lines[i]
            if line.lstrip().startswith("```"):
                fenced = not fenced
                i += 1
                continue
            start = i
            if fenced and line.strip().startswith("rewrite-mine "):
                text = line
                while text.rstrip().endswith("\\") and i + 1 < len(lines):
                    i += 1
                    text = text.rstrip()[:-1] + " " + lines[i].strip()
                out.append((doc, start + 1, text.strip()))
            i += 1
    return out


COMMANDS = documented_commands()


def _strip_comment(command: str) -> str:
    # `# ...` after two spaces is the documents' comment style; a `#` inside quotes is not a comment.
    return re.split(r"\s{2,}#\s", command, maxsplit=1)[0].strip()


def _stand_in(pattern: str, work: str) -> str:
    """A real local file of the kind `pattern` names (a glob, a remote path or a file that is not here)."""
    name = os.path.basename(pattern.rstrip("/")).replace("*", "1") or "input"
    low = pattern.lower()
    if ("pages-" in low or "history" in low) and ".xml" not in name:  # `...-pages-articles*.bz2` names files
        name = re.sub(r"\.(bz2|7z)$", r".xml.\1", name)            # like `...-pages-articles1.xml-p1p41242.bz2`
    path = os.path.join(work, "inputs", name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if "history" in low:
        shutil.copyfile(h.inputs()["history"], path)
    elif "multistream" in low:  # a multistream dump travels with its index
        data, index = readers.build_multistream(os.path.dirname(path))
        os.replace(data, path)
        os.replace(index, path.replace(".xml.bz2", "-index.txt.bz2"))
    elif "pages-articles" in low or low.endswith((".xml.bz2", ".bz2")):
        shutil.copyfile(ENWIKI, path)
    elif ".wet" in low:
        docs = [(f"https://example.org/{i}", f"{a}\n{b}") for i, (a, b) in enumerate(SENTENCES)]
        with open(path, "wb") as f:
            f.write(gzip.compress(readers.wet_file(docs)))
    elif low.endswith((".nxml", ".tei.xml")) or "pmc" in low:
        shutil.copyfile(ROOT / "samples" / "scientific" / "jats" / "PMC5828200.nxml", path)
    elif "s2orc" in low or "pdf_parses" in low:
        shutil.copyfile(ROOT / "samples" / "scientific" / "s2orc" / "20200705-pdf_parses-sample.jsonl.gz", path)
    elif low.endswith(".jsonl"):
        shutil.copyfile(ROOT / "tests" / "testdata" / "discovery" / "enwiki_docs.jsonl", path)
    elif low.endswith(".conllu"):
        shutil.copyfile(ROOT / "tests" / "testdata" / "discofuse" / "fusion.conllu", path)
    elif "wikisplit" in low or "tune" in low:
        shutil.copyfile(ROOT / "tests" / "testdata" / "wikisplit" / "tune.tsv", path)
    elif low.endswith(".tsv"):  # complex-simple or s1-s2 pairs
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(f"{a}\t{b}\n" for a, b in SENTENCES)
    else:
        raise AssertionError(f"no stand-in for the input {pattern!r}: add one to this test")
    return path


def _local(value: str, work: str) -> str:
    if "://" not in value:
        rooted = value if os.path.isabs(value) else str(ROOT / value)
        if glob.glob(rooted, recursive=True):
            return rooted
    return _stand_in(value, work)


def _localize(argv, work):
    """The command's arguments with inputs that are here, its output in `work`."""
    out, i = [], 0
    while i < len(argv):
        a = argv[i]
        flag, eq, value = a.partition("=")
        takes = flag in INPUT_FLAGS + PATH_FLAGS + ("--output",)
        if takes and not eq:
            value = argv[i + 1]
            i += 1
        if flag in INPUT_FLAGS:
            out += [flag, _local(value, work)]
        elif flag in PATH_FLAGS:
            path = os.path.join(work, "inputs", os.path.basename(value))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            from tests.ppdb_fixtures import write_rules  # pylint: disable=import-outside-toplevel
            write_rules(path, gz=path.endswith(".gz"))
            out += [flag, path]
        elif flag == "--output":
            out += [flag, os.path.join(work, "out")]
        elif flag in ("--environment_type", "--environment_config"):
            # The stand-ins are files of this machine, which a worker image's containers do not see (the job
            # refuses that pair before it starts); the pipeline is built for the local runner anyway.
            if not eq:
                i += 1
        else:
            out.append(a)
        i += 1
    return out


def _build(job_name: str, argv, work):
    """Parse `argv` as `rewrite-mine <job_name>` does and build the whole pipeline with the local runner."""
    from pipelines.framework import runners  # pylint: disable=import-outside-toplevel
    from transforms.read import expand_inputs  # pylint: disable=import-outside-toplevel

    def local(args):
        args.runner, args.num_workers = "local", 1
        return args

    if job_name == "all":
        from pipelines import all as all_job  # pylint: disable=import-outside-toplevel
        units, _, _ = all_job.plan_units(argv)
        for unit in units:
            local(unit.args)
        pipeline, _ = all_job.build_all(units, [])
    else:
        from pipelines import cli  # pylint: disable=import-outside-toplevel
        import importlib  # pylint: disable=import-outside-toplevel
        job = importlib.import_module(cli.JOBS[job_name]).JOB
        args, _ = job.parse_args(argv)
        pipeline, _ = job.build_pipeline(local(args), [], expand_inputs(args.input))
    # The graph serializes as a runner receives it (every DoFn pickled): the whole job is there.
    proto = pipeline.to_runner_api()
    assert len(proto.components.transforms) > 20
    return pipeline


def _cases():
    cases = []
    for doc, line, command in COMMANDS:
        text = _strip_comment(command)
        words = shlex.split(text)
        job = words[1] if len(words) > 1 else ""
        skip = None
        if "..." in text or re.search(r"<[a-z_]+>", text):
            skip = "a placeholder in the command"
        elif job in ("cluster", "show", "profile", "reference", "blind"):
            skip = f"`rewrite-mine {job}` is no job (tested in its own module)"
        cases.append(pytest.param(words, id=f"{doc}:{line}",
                                  marks=[pytest.mark.skip(reason=skip)] if skip else []))
    return cases


def test_the_documents_show_the_commands_this_test_reads():
    built = [c for c in _cases() if not c.marks]
    assert len(COMMANDS) >= 20 and len(built) >= 14, [c.id for c in built]
    # The example of the issue is among them.
    assert any(w[:3] == ["rewrite-mine", "all", "--preset"] and "sample" in w for w in (c.values[0] for c in built))


@pytest.mark.slow
@pytest.mark.parametrize("words", _cases())
def test_a_documented_command_parses_and_builds_its_pipeline(words, tmp_path):
    from pipelines import cli  # pylint: disable=import-outside-toplevel
    job = words[1]
    assert job in cli.JOBS or job in cli.ALIASES, f"unknown job in {' '.join(words)}"
    job = cli.ALIASES.get(job, job)
    _build(job, _localize(words[2:], str(tmp_path)), str(tmp_path))
