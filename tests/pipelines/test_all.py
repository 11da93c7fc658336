"""`rewrite-mine all`: one DAG, each source read once, every miner writing what its own job writes."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "framework"))  # test_runners
import test_runners as h  # noqa: E402  pylint: disable=wrong-import-position

from pipelines import all as all_job  # noqa: E402


def test_options_keep_their_names_and_an_option_of_two_jobs_is_shared_once():
    job = all_job.make_all_job()
    parser = job.make_parser()
    flags = [s for a in parser._actions for s in a.option_strings]  # pylint: disable=protected-access
    assert flags.count("--langid_model") == 1
    assert job.shared_options["--langid_model"] == ["discofuse", "simsim"]
    for flag in ("--min_marker_count", "--annotator", "--split_size", "--jobs", "--history_input", "--dump_date"):
        assert flags.count(flag) == 1, flag
    args, _ = job.parse_args(["--input", "x", "--output", "o", "--preset", "sample", "--annotator", "spacy",
                              "--split_size", "7", "--discovery_variants", "base"])
    jobs = all_job.load_jobs()
    disco = all_job.job_args(args, jobs["discovery"], jobs)
    fuse = all_job.job_args(args, jobs["discofuse"], jobs)
    split = all_job.job_args(args, jobs["wikisplit"], jobs)
    assert (disco.variants, disco.min_marker_count, disco.langid_model) == ("base", 5, "")
    assert not hasattr(fuse, "variants") and not hasattr(fuse, "split_size") and fuse.annotator == "spacy"
    assert fuse.langid_model == ""  # the shared option: both jobs read it
    assert split.split_size == 7 and not hasattr(split, "annotator") and not hasattr(split, "jobs")
    assert jobs["discofuse"].variants_for(fuse) == ("full", "balanced")


def test_an_option_two_jobs_define_differently_gets_each_jobs_own_name_and_default():
    """`--variants` of discovery and of simsim (and `--max_words` / `--min_words` of discovery and parasci) once
    were one shared option under `all`: simsim got discovery's variants ("--variants: unknown ['adv', 'base',
    ...]; choose from s1,s2,s3") and parasci discovery's sentence lengths (issue 32)."""
    from pipelines import simsim
    job = all_job.make_all_job()
    parser = job.make_parser()
    flags = {s for a in parser._actions for s in a.option_strings}  # pylint: disable=protected-access
    assert {"--discovery_variants", "--simsim_variants", "--discovery_max_words", "--parasci_max_words",
            "--discovery_min_words", "--parasci_min_words"} <= flags
    assert "--variants" not in flags and "--max_words" not in flags
    jobs = all_job.load_jobs()
    dests = {name: all_job.job_option_dests(j) for name, j in jobs.items()}
    for argv in (["--preset", "sample"], []):
        args, _ = job.parse_args(["--input", "x", "--output", "o"] + argv)
        for name, j in jobs.items():
            alone, _ = j.parse_args(["--input", "x", "--output", "o"] + (argv if argv and argv[1] in j.presets else []))
            ours = vars(all_job.job_args(args, j, jobs))
            # every option of the job's own (not one it shares with another job) has its value alone, presets
            # included; a clashing one too, under its plain name
            own = {k for k in dests[name] if all(k not in d for n, d in dests.items() if n != name)}
            own |= all_job.clashing_dests(jobs) & dests[name]
            assert {k: ours[k] for k in own} == {k: getattr(alone, k) for k in own}, name
        simsim.params_from_args(all_job.job_args(args, jobs["simsim"], jobs))  # the README's command failed here
    args, _ = job.parse_args(["--input", "x", "--output", "o", "--simsim_variants", "s2", "--parasci_max_words", "60"])
    assert all_job.job_args(args, jobs["simsim"], jobs).variants == "s2"
    assert all_job.job_args(args, jobs["discovery"], jobs).variants == jobs["discovery"].parse_args(
        ["--input", "x", "--output", "o"])[0].variants
    assert (all_job.job_args(args, jobs["parasci"], jobs).max_words,
            all_job.job_args(args, jobs["discovery"], jobs).max_words) == (60, 32)


def test_sources_are_routed_to_the_miners_that_consume_them():
    routed = all_job.route_inputs(
        ["d/enwiki-20240601-pages-articles1.xml-p1p2.bz2", "d/enwiki-20240601-pages-meta-history1.xml-p1p2.bz2",
         "d/enwiki-20240601-pages-articles-multistream-index.txt.bz2", "w/CC-MAIN-1.warc.wet.gz", "w/news.jsonl",
         "p/pairs.tsv"],
        ["h/other-history.xml.bz2"], "auto", ["discovery", "discofuse", "wikisplit"])
    assert routed == {
        "discovery": ["d/enwiki-20240601-pages-articles1.xml-p1p2.bz2", "p/pairs.tsv", "w/CC-MAIN-1.warc.wet.gz",
                      "w/news.jsonl"],
        "discofuse": ["d/enwiki-20240601-pages-articles1.xml-p1p2.bz2", "w/CC-MAIN-1.warc.wet.gz", "w/news.jsonl"],
        "wikisplit": ["d/enwiki-20240601-pages-meta-history1.xml-p1p2.bz2", "h/other-history.xml.bz2"]}
    articles = "a/enwiki-20240601-pages-articles1.xml.bz2"
    assert all_job.route_inputs([articles], [], "auto", ["wikisplit", "discovery"]) == {"discovery": [articles]}


def test_papers_pair_files_and_wikisplit_output_reach_the_new_miners():
    history = "d/enwiki-20240601-pages-meta-history1.xml-p1p2.bz2"
    routed = all_job.route_inputs(
        ["d/enwiki-20240601-pages-articles1.xml-p1p2.bz2", history, "s/paper.tei.xml", "s/PMC1.nxml"],
        [], "auto", list(all_job.JOB_MODULES), papers_inputs=["s2orc/*.jsonl.gz"],
        simplification_inputs=["wikilarge.tsv"])
    assert routed["parasci"] == ["s/PMC1.nxml", "s/paper.tei.xml", "s2orc/*.jsonl.gz"]
    # simsim reads the articles and the pair file, and lists wikisplit's inputs: it is fed wikisplit's
    # written pairs, so they are part of what its output depends on.
    assert routed["simsim"] == sorted(["d/enwiki-20240601-pages-articles1.xml-p1p2.bz2", history, "wikilarge.tsv"])
    assert "s/paper.tei.xml" not in routed["discovery"] and history not in routed["discofuse"]
    assert ("wikisplit", "simsim") in all_job.FEEDS


def test_unknown_job_and_no_input_fail_with_the_option_to_fix():
    from pipelines.framework.job import JobFailed
    with pytest.raises(JobFailed, match="unknown job 'paraphrase' in --jobs"):
        all_job.plan_units(["--input", h.inputs()["articles"], "--output", "o", "--jobs", "paraphrase"])
    with pytest.raises(JobFailed, match=r"no input for any of \['wikisplit'\]"):
        all_job.plan_units(["--input", h.inputs()["articles"], "--output", "o", "--jobs", "splits"])


@pytest.mark.slow
def test_all_writes_what_each_job_writes_alone_and_a_rerun_finds_nothing_to_do(tmp_path):
    argv = ["--input", h.inputs()["articles"], "--input", h.inputs()["history"], "--output", str(tmp_path / "all"),
            "--preset", "sample", "--num_shards", "2", "--num_workers", "1",
            "--jobs", "discovery,discofuse,wikisplit"]
    manifests = all_job.run(argv)
    assert [m["dataset"] for m in manifests] == ["markers", "fusion", "splits"]
    assert sorted(os.listdir(tmp_path / "all")) == ["fusion", "markers", "splits"]
    # Read once, mined three ways: each dataset is byte-identical to its own job's output.
    assert h.digest(tmp_path / "all" / "markers") == h.digest(h.reference("discovery"))
    assert h.digest(tmp_path / "all" / "splits") == h.digest(h.reference("wikisplit"))
    h.run_job("pipelines.discofuse", ["--input", h.inputs()["articles"], "--output", str(tmp_path / "alone"),
                                      "--num_shards", "2", "--num_workers", "1"])
    fusion = h.digest(tmp_path / "all" / "fusion")
    assert fusion == h.digest(tmp_path / "alone" / "fusion")
    assert h.examples_written(tmp_path / "all" / "fusion" / "manifest.json") > 0
    assert h.examples_written(tmp_path / "all" / "splits" / "manifest.json") > 0
    for name in ("markers", "fusion"):  # the one read's counts reach both datasets
        assert manifests[0]["counts"]["stages"]["read"] == \
            next(m for m in manifests if m["dataset"] == name)["counts"]["stages"]["read"]

    again = all_job.run(argv)
    assert [m["_up_to_date"] for m in again] == [True, True, True]


# ------------------------------------------------------------------ deploy/ examples

def _known_option(name) -> bool:
    from apache_beam.options.pipeline_options import PipelineOptions
    parser = all_job.make_all_job().make_parser()
    flags = {s for a in parser._actions for s in a.option_strings}  # pylint: disable=protected-access
    return f"--{name}" in flags or name in PipelineOptions([]).get_all_options()


def test_flex_template_parameters_are_options_of_rewrite_mine_all():
    import json
    from conftest import ROOT
    meta = json.loads((ROOT / "deploy" / "dataflow" / "flex_template_metadata.json").read_text())
    names = [p["name"] for p in meta["parameters"]]
    assert {"input", "output", "history_input", "dump_date"} <= set(names)
    assert [n for n in names if not _known_option(n)] == []


def test_airflow_dag_passes_only_known_options_to_rewrite_mine_all():
    import ast
    from conftest import ROOT
    tree = ast.parse((ROOT / "deploy" / "airflow" / "rewrite_mine_dag.py").read_text())
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call)
                and getattr(n.func, "id", "") == "BeamRunPythonPipelineOperator")
    kw = {k.arg: k.value for k in call.keywords}
    assert (ast.literal_eval(kw["py_file"]), ast.literal_eval(kw["py_options"])) == ("pipelines.all", ["-m"])
    keys = [k.value for k in kw["pipeline_options"].keys]
    assert [k for k in keys if not _known_option(k)] == []


def test_cron_and_systemd_script_runs_rewrite_mine_all_on_the_newest_dump(tmp_path):
    import subprocess
    from conftest import ROOT
    dumps = tmp_path / "dumps"
    for date in ("20240501", "20240601"):
        (dumps / date).mkdir(parents=True)
        (dumps / date / f"enwiki-{date}-pages-articles1.xml-p1p2.bz2").write_bytes(b"")
    (dumps / "20240601" / "enwiki-20240601-pages-meta-history1.xml-p1p2.bz2").write_bytes(b"")
    env = {"PATH": "/usr/bin:/bin", "DUMPS": str(dumps), "OUT": str(tmp_path / "out"), "WORKERS": "3",
           "REWRITE_MINE": "echo"}
    proc = subprocess.run([str(ROOT / "deploy" / "rewrite-mine-latest.sh")], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [
        "all", "--input", f"{dumps}/20240601/*-20240601-pages-articles*.xml*.bz2",
        "--history_input", f"{dumps}/20240601/*-20240601-pages-meta-history*.bz2",
        "--output", str(tmp_path / "out"), "--dump_date", "auto", "--tsv", "--num_workers", "3"]


@pytest.mark.slow
@pytest.mark.skipif(__import__("shutil").which("apertium") is None, reason="Debian package apertium missing")
def test_simsim_in_all_is_fed_the_pairs_wikisplit_writes(tmp_path):
    """One DAG: wikisplit mines the history, simsim back-translates what wikisplit writes (its splits
    become seeds carrying the splitting operation) and the sentences of the articles."""
    from schemas.records import SimplificationExample
    from transforms.sinks import read_records
    argv = ["--input", h.inputs()["history"], "--output", str(tmp_path / "all"), "--preset", "sample",
            "--num_workers", "1", "--jobs", "wikisplit,simsim", "--pivots", "es", "--variants", "s2",
            "--candidate_checks", "none"]  # the feed is tested here, not the checks (few seeds, one pivot)
    manifests = all_job.run(argv)
    by_dataset = {m["dataset"]: m for m in manifests}
    assert sorted(by_dataset) == ["simplify", "splits"]
    written = h.examples_written(tmp_path / "all" / "splits" / "manifest.json")
    seeds = by_dataset["simplify"]["counts"]["stages"]["seeds"]
    assert written > 0 and seeds.get("wikisplit", 0) > 0, seeds
    # Every pair wikisplit wrote (all variants, all splits) that survived the seed filters is a seed.
    assert seeds["wikisplit"] <= written
    shards = sorted(str(p) for p in (tmp_path / "all" / "simplify" / "s2").rglob("*.tfrecord"))
    records = read_records(shards, SimplificationExample)
    assert records and {r.seed_kind for r in records} == {"wikisplit"}
    assert all(r.splitting and "splitting" in r.operations for r in records)


@pytest.mark.slow
@pytest.mark.skipif(__import__("shutil").which("apertium") is None, reason="Debian package apertium missing")
def test_every_job_writes_the_same_bytes_with_one_worker_as_with_two(all_reference, tmp_path):
    """Issue 49: ParaSCI's shards followed the worker count (cpus/N BLAS threads per worker rounded a similarity
    in its 7th decimal, and the shard a record lands in followed those bytes). Every job, SimSim's BERTScore and
    ParaSCI's encoder included, with 1 worker process against the session's reference with 2. (~2 min: the five
    jobs in one run, the reference shared with the engine tests.)"""
    out = tmp_path / "one"
    manifests = h.run_all(h.all_args() + ["--output", str(out), "--num_workers", "1", "--no_progress"])
    assert tuple(m["dataset"] for m in manifests) == h.ALL_DATASETS
    for dataset in h.ALL_DATASETS:
        h.same_dataset(out / dataset, all_reference / dataset)
