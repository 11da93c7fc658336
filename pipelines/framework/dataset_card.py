"""The dataset card: OUTPUT/<dataset>/README.md, generated from the manifest.

One card per dataset a job writes, in the Hugging Face Hub's format (YAML front
matter, then Markdown), so that the same file documents the data for a person
and tells `datasets.load_dataset(OUTPUT/<dataset>, <variant>)` which Parquet
files make which variant (config) and split. What a card says about a dataset
that no manifest holds (what the data is, the paper, its citation, known
limitations, the licence) is the table `CARDS` below, keyed by dataset name
(a run in another language, `markers-uk`, takes its base's: `markers`);
everything measured (inputs and dump dates, counts per variant / split /
label, filters, thresholds and rejects) comes from the manifest of the run.
The card holds nothing that differs between two runs of the same inputs and
options (no run date, no commit, no machine paths), so it is byte-identical too.
"""
import dataclasses
import json
import os
import re
import typing

from schemas.records import base_dataset, tfds_name


@dataclasses.dataclass(frozen=True)
class CardText:
    """The fixed text of one dataset's card."""
    pretty_name: str
    summary: str  # what one example is
    method: str  # how it is mined, with the paper's sections
    paper: str  # "Authors, Title, Venue Year"
    citation: str  # BibTeX
    homepage: str  # the original release
    license_id: str  # Hub licence identifier
    license: str  # the licence, in words, and where it comes from
    task_categories: typing.Tuple[str, ...]
    limitations: typing.Tuple[str, ...]


_WIKIPEDIA_LICENSE = ("CC BY-SA 4.0, inherited from the input text (Wikipedia text is CC BY-SA 4.0 with the "
                      "attribution the dump's page history gives; other inputs keep their own licence). "
                      "Attribute Wikipedia and the paper above; share adaptations alike.")

CARDS: typing.Dict[str, CardText] = {
    "markers": CardText(
        pretty_name="Discovery: discourse-marker sentence pairs",
        summary="Two consecutive sentences `sentence1`, `sentence2` of running text where `sentence2` began "
                "with a discourse marker (e.g. \"However,\", \"In other words,\"), removed from it; the marker "
                "is the label (`label_name`) to predict from the two sentences.",
        method="Sileo et al. (2019) §3: consecutive sentences filtered by length, language and casing; "
               "`sentence2` starts with a PDTB seed marker or a discovered sentence-initial adverb followed by a "
               "comma; markers seen often enough are kept, capped per marker. Variants: big (all kept, capped), "
               "base (N per marker), hard (pairs an s2-only classifier gets wrong), shuffled, top10, adv.",
        paper="Damien Sileo, Tim Van de Cruys, Camille Pradel and Philippe Muller, \"Mining Discourse Markers "
              "for Unsupervised Sentence Representation Learning\", NAACL 2019",
        citation="@inproceedings{sileo-etal-2019-mining,\n"
                 "  title = {Mining Discourse Markers for Unsupervised Sentence Representation Learning},\n"
                 "  author = {Sileo, Damien and Van de Cruys, Tim and Pradel, Camille and Muller, Philippe},\n"
                 "  booktitle = {Proceedings of the 2019 Conference of the North American Chapter of the "
                 "Association for Computational Linguistics (NAACL)},\n"
                 "  year = {2019}\n}",
        homepage="https://github.com/synapse-developpement/Discovery",
        license_id="cc-by-sa-4.0", license=_WIKIPEDIA_LICENSE,
        task_categories=("text-classification",),
        limitations=(
            "Markers are found by surface string at the start of `sentence2`; a marker used in another sense "
            "(\"Still, ...\" as an adverb of time) is kept with its label.",
            "Sentence segmentation and language identification are automatic; their errors pass into pairs.",
            "Small inputs give few markers: variants select per marker, so counts are far below the paper's.",
        )),
    "splits": CardText(
        pretty_name="WikiSplit: split-and-rephrase pairs from Wikipedia edit history",
        summary="A `complex` sentence and the two sentences `simple1`, `simple2` an editor split it into "
                "(or the reverse edit: `direction`).",
        method="Botha et al. (2018) §2.1: in adjacent revisions of a page, a sentence C became two consecutive "
               "sentences S1 S2 when C and S1 share their first three tokens, C and S2 their last three, and "
               "sentence BLEU(C, S_i) >= 0.2 for both; reverted and vandal edits are skipped. Fixed-size tune / "
               "validation / test splits by page id, the rest in train.",
        paper="Jan A. Botha, Manaal Faruqui, John Alex, Jason Baldridge and Dipanjan Das, \"Learning To Split "
              "and Rephrase From Wikipedia Edit History\", EMNLP 2018",
        citation="@inproceedings{botha-etal-2018-learning,\n"
                 "  title = {Learning To Split and Rephrase From Wikipedia Edit History},\n"
                 "  author = {Botha, Jan A. and Faruqui, Manaal and Alex, John and Baldridge, Jason and "
                 "Das, Dipanjan},\n"
                 "  booktitle = {Proceedings of the 2018 Conference on Empirical Methods in Natural Language "
                 "Processing (EMNLP)},\n"
                 "  year = {2018}\n}",
        homepage="https://github.com/google-research-datasets/wiki-split",
        license_id="cc-by-sa-4.0", license=_WIKIPEDIA_LICENSE,
        task_categories=("text2text-generation",),
        limitations=(
            "The trigram and BLEU rules accept some edits that are not splits (e.g. a clause moved to a new "
            "sentence with other changes); the paper's manual check found most, not all, pairs correct.",
            "The release TSV is tokenized on punctuation like the public WikiSplit files; the TFRecord / Parquet "
            "fields hold the untokenized text.",
        )),
    "fusion": CardText(
        pretty_name="DiscoFuse: discourse-based sentence fusion",
        summary="Two incoherent sentences (`incoherent_first_sentence`, `incoherent_second_sentence`) and the "
                "coherent text they were made from (`coherent_*`): the fusion target, with its "
                "`discourse_type` and `connective_string`.",
        method="Geva et al. (2019) §3, Table 14 and Appendix A.1: dependency rules \"un-fuse\" one sentence or "
               "a pair of consecutive sentences (connectives, anaphora, relative clauses, appositions, "
               "coordination) into two independent sentences. Variants: full, and balanced over discourse types.",
        paper="Mor Geva, Eric Malmi, Idan Szpektor and Jonathan Berant, \"DiscoFuse: A Large-Scale Dataset for "
              "Discourse-Based Sentence Fusion\", NAACL 2019",
        citation="@inproceedings{geva-etal-2019-discofuse,\n"
                 "  title = {DiscoFuse: A Large-Scale Dataset for Discourse-Based Sentence Fusion},\n"
                 "  author = {Geva, Mor and Malmi, Eric and Szpektor, Idan and Berant, Jonathan},\n"
                 "  booktitle = {Proceedings of the 2019 Conference of the North American Chapter of the "
                 "Association for Computational Linguistics (NAACL)},\n"
                 "  year = {2019}\n}",
        homepage="https://github.com/google-research-datasets/discofuse",
        license_id="cc-by-sa-4.0", license=_WIKIPEDIA_LICENSE,
        task_categories=("text2text-generation",),
        limitations=(
            "Anaphora rules need coreference: the run uses the coreference named under Run settings above "
            "(the built-in heuristic by default, not the paper's neural resolver), so pronoun/nominal "
            "substitutions are fewer and noisier than in the release.",
            "The dependency parser (spaCy by default) differs from the paper's; its errors make rules fire "
            "or miss.",
        )),
    "simplify": CardText(
        pretty_name="SimSim: complex-simple pairs by back-translation and simulated edits",
        summary="A `complex` sentence and a `simple` rewrite, with the `method` that made it, the pivot "
                "language, language-model scores and the five operation metrics (alignment, substitution, "
                "dropping, reordering, splitting).",
        method="The SimSim paper: seeds are back-translated through pivot languages, and a change of a "
               "back-translation is kept only when other pivots make it alike (the rest is put back as the seed "
               "wrote it); the candidate a language model finds most natural is kept unless the seed is clearly "
               "more natural (--lm_margin); s3 is s2 (or, unlike the paper, the seed itself where the pivots agree "
               "on no change: method simulated:seed) after at least one simulated operation that keeps the "
               "meaning: a substitution (PPDB rules with --ppdb, else one the pivots agree on), a parse-checked "
               "drop (a parenthesis, an apposition, a non-restrictive relative clause; prepositional phrases on "
               "request) or a split (coordinated clauses; a relative clause or apposition by DiscoFuse's rules); "
               "a text none of them changes gives no s3 record. WikiSplit pairs bring splitting too. Variants: "
               "s1 (every back-translation), s2 (the selected one per seed), s3 (s2 or the seed after simulated "
               "operations).",
        paper="\"Divide-and-Conquer Text Simplification by Scalable Data Enhancement\" (the SimSim paper)",
        citation="@misc{simsim,\n"
                 "  title = {Divide-and-Conquer Text Simplification by Scalable Data Enhancement},\n"
                 "  note = {the SimSim paper; complete authors and venue from the publication}\n}",
        homepage="",
        license_id="cc-by-sa-4.0", license=_WIKIPEDIA_LICENSE + " Pair files brought as input (WikiLarge, "
                                                                "Newsela) keep their own licence.",
        task_categories=("text2text-generation",),
        limitations=(
            "The offline default translator is Apertium (rule-based) and the default language model is small: "
            "rewrites are plainer and noisier than with the paper's neural models, and precision comes before "
            "yield: on 1,000 held-out seed lines (ASSET validation 0-999) the job writes 26 s2 and 146 s3 records "
            "(135 of the s3 records are simulated on a seed the pivots agree on no change of; none equals its s2 "
            "record). Quality is claimed only from blind readings of held-out output by new strict readers "
            "(docs/SIMSIM_QUALITY.md). The previous code's reading (issue 51, round 1): ASSET's human "
            "references 70% acceptable or with one slip (50% acceptable), s2 81% (65%), s3 56% (39%). This "
            "version's reading (issue 51, round 2; two sheets, two new readers): references 62% (55%), s3 94% "
            "(90%) on 80 fresh s3 records; s2 96% (88%) on 26 records the previous readers had judged, a tuning "
            "figure. Readings of the bundled sample's output, "
            "the text the checks were tuned on, are tuning figures.",
            "Without --ppdb, s3 substitutes only what the pivots agree on (and WordNet synonyms with "
            "--wordnet_substitution), and the records' substitution metric is not measured "
            "(`has_substitution_metric` is false; `rewrite-mine profile --wordnet` measures it).",
            "s1 (every back-translation, as the paper's S1) carries its alignment and operation metrics for a "
            "deterministic sample only (`has_alignment`, `has_operation_metrics`; --s1_alignment_sample, "
            "--s1_metrics_sample); s2 and s3 are measured in full.",
        )),
    "sci_para": CardText(
        pretty_name="ParaSCI: scientific paraphrases",
        summary="Two sentences of scientific papers (`src`, `tgt`) that paraphrase each other, with the "
                "`method` that found them, both papers and sections, similarity, BERTScore and length rate.",
        method="Dong et al. (2021) §3-4: sentences of one paper restating each other across sections "
               "(intra_paper), the part of a long sentence paraphrasing a shorter one (partial), definitions of "
               "one term in different papers (definition), sentences citing the same paper (same_citation); "
               "nearest-neighbour candidates pass BERTScore and a length-rate filter (§4.2).",
        paper="Qingxiu Dong, Xiaojun Wan and Yue Cao, \"ParaSCI: A Large Scientific Paraphrase Dataset for "
              "Longer Paraphrase Generation\", EACL 2021",
        citation="@inproceedings{dong-etal-2021-parasci,\n"
                 "  title = {ParaSCI: A Large Scientific Paraphrase Dataset for Longer Paraphrase Generation},\n"
                 "  author = {Dong, Qingxiu and Wan, Xiaojun and Cao, Yue},\n"
                 "  booktitle = {Proceedings of the 16th Conference of the European Chapter of the Association "
                 "for Computational Linguistics (EACL)},\n"
                 "  year = {2021}\n}",
        homepage="https://github.com/dqxiu/ParaSCI",
        license_id="other",
        license=("Sentences keep the licence of the paper they come from (ACL Anthology papers CC BY 4.0, "
                 "S2ORC ODC-By, PubMed Central open-access articles as each file states); check the input "
                 "papers before redistributing."),
        task_categories=("text2text-generation",),
        limitations=(
            "BERTScore runs with the model named under run settings; the paper's thresholds are tied to "
            "SciBERT and are adjusted for another model.",
            "Citation markers are replaced by [CITATION]; PDF-extracted text keeps extraction errors.",
        )),
}

# Input formats that are Wikimedia dumps (miners.sources.detect_format): their text is Wikipedia's, CC BY-SA.
_DUMP_FORMATS = ("wiki", "wiki_multistream", "wiki_multistream_index", "history")
# A licence the user declares (--input_license) is the card's `license:` id when it reads as one.
_LICENSE_ID = re.compile(r"^[a-z0-9][a-z0-9.+-]*$")


def _is_dump(path: str, fmt: str) -> bool:
    from miners.sources import detect_format
    try:
        return detect_format(path, fmt if fmt in _DUMP_FORMATS else "auto") in _DUMP_FORMATS
    except ValueError:
        return False  # a name no reader rule knows (CoNLL-U, a user's text files): not a dump


def input_license(manifest: dict, text: CardText) -> typing.Tuple[str, str]:
    """(Hub licence id, licence in words) of the card, from the run's inputs.

    Only Wikimedia dumps: the card text's own licence (Wikipedia's terms). Other inputs (JSON lines,
    CoNLL-U, WET, pair files): what the user declared with `--input_license` (manifest `options`), else
    "unknown". A card whose licence does not come from Wikipedia (ParaSCI's: the papers' own) keeps it.
    """
    if text.license_id != "cc-by-sa-4.0":
        return text.license_id, text.license
    opts = manifest.get("options", {})
    fmt = str(opts.get("format") or "auto")
    paths = [str(i.get("path", "")) for i in manifest.get("inputs", [])]
    others = sorted(os.path.basename(p) for p in paths if not _is_dump(p, fmt))
    if not others:
        return text.license_id, text.license
    named = ", ".join(f"`{p}`" for p in others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
    dumps = len(others) < len(paths)
    wiki = (" The Wikipedia dump inputs are CC BY-SA 4.0 (attribution: the dump's page history); an example "
            "keeps the licence of the input it was mined from.") if dumps else ""
    declared = str(opts.get("input_license") or "").strip()
    if not declared:
        return "unknown", (f"Unknown, see inputs: the licence of {named} was not declared (`--input_license`); "
                           f"the examples keep the licence of the text they were mined from.{wiki}")
    lid = declared.lower()
    lid = "cc-by-sa-4.0" if dumps and lid == "cc-by-sa-4.0" else (lid if _LICENSE_ID.match(lid) and not dumps
                                                                   else "other")
    return lid, (f"{declared}, as declared for {named} with `--input_license` (the run does not check it); "
                 f"the examples keep the licence of the text they were mined from.{wiki}")


# Options that are filters or thresholds (shown in the card), by name.
_THRESHOLD_OPTION = re.compile(r"^(min|max)_|threshold|_rate$|^split$|^split_size$|filter")


def hf_configs(variants, splits_present: typing.Dict[str, typing.Sequence[str]]) -> list:
    """The YAML `configs` of the card: one config per variant, one data_files entry per split.

    Args:
      variants: variant names in order (the first is the default config).
      splits_present: {variant: splits whose Parquet files exist}.
    """
    configs = []
    for variant in variants:
        files = [{"split": s, "path": f"{variant}/{s}/*.parquet"} for s in splits_present.get(variant, ())]
        if files:  # a variant or split of no examples has no Parquet files: not listed (a glob must match)
            configs.append({"config_name": variant, "data_files": files, **({} if configs else {"default": True})})
    return configs


def _yaml_scalar(v) -> str:
    return json.dumps(v) if isinstance(v, str) else ("true" if v is True else "false" if v is False else str(v))


def _front_matter(text: CardText, configs, language: str = "en", license_id: str = "") -> str:
    lines = ["---", f"pretty_name: {_yaml_scalar(text.pretty_name)}", f"license: {license_id or text.license_id}",
             "language:", f"- {language}", "task_categories:"] + [f"- {t}" for t in text.task_categories]
    if configs:
        lines.append("configs:")
        for c in configs:
            lines.append(f"- config_name: {_yaml_scalar(c['config_name'])}")
            if c.get("default"):
                lines.append("  default: true")
            lines.append("  data_files:")
            for f in c["data_files"]:
                lines += [f"  - split: {_yaml_scalar(f['split'])}", f"    path: {_yaml_scalar(f['path'])}"]
    return "\n".join(lines + ["---", ""])


def _table(header, rows) -> typing.List[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return out + [""]


def render_card(manifest: dict, configs=None, quality=None) -> str:
    """README.md text for the dataset of `manifest`.

    Args:
      manifest: the job's manifest (pipelines/framework/job.py `build_manifest`).
      configs: `hf_configs(...)` when Parquet files were written, else None (no `configs` in the YAML).
      quality: the quality stage's settings (dict), shown with the filters.
    """
    ds = manifest["dataset"]
    base = base_dataset(ds)  # `markers-uk` is a run of `markers`: its card text is `markers`'s
    text = CARDS.get(ds) or CARDS.get(base) or CardText(
        pretty_name=ds, summary=f"`{manifest['record']}` records.", method=manifest.get("job", ""), paper="",
        citation="", homepage="", license_id="other", license="The licence of the input data.",
        task_categories=(), limitations=())
    written = manifest["counts"]["written"]
    language = manifest.get("language") or "en"
    license_id, license_text = input_license(manifest, text)
    out = [_front_matter(text, configs, language, license_id), f"# {text.pretty_name}", "",
           f"`{ds}`, written by `rewrite-mine {manifest['job']}` (rewrite-mining "
           f"{manifest.get('code_version', {}).get('package', '')}). The run's date, code commit, options and "
           "input checksums are in `manifest.json`.", ""]
    if language != "en":  # English cards stay as they were
        out += [f"Language: `{language}` (`--language`, or the language the Wikipedia dumps name); sentences "
                "cut by that language's segmenter (miners/text/sentences.py). What the method and the filters below "
                "say of English applies to this language only where the repository's docs/LANGUAGES.md says so.",
                ""]
    out += ["## What the data is", "", text.summary, "",
            f"Record: `{manifest['record']}`; release columns: "
            + ", ".join(f"`{c}`" for c in manifest.get("release_columns", [])) + ".", "",
            "## Method and paper", "", text.method, ""]
    if text.paper:
        out += [f"Paper: {text.paper}." + (f" Original release: {text.homepage}" if text.homepage else ""), ""]
    if text.citation:
        out += ["```bibtex", text.citation, "```", ""]

    first_variant = manifest["variants"][0] if manifest["variants"] else "<variant>"
    out += ["## Loading", "",
            "Each `<variant>/` folder loads with TensorFlow Datasets (`dataset_info.json` and `features.json` "
            "are written beside the splits; shard files `<split>/" + ds + "-SSSSS-of-NNNNN.tfrecord`, TFDS "
            "filename template `{SPLIT}/{DATASET}-{SHARD_X_OF_Y}.{FILEFORMAT}`; splits with no examples are "
            "left out of the TFDS split list" + (
                "" if base == ds else f"; TFDS builder names are identifiers: this one's is "
                f"`{tfds_name(ds)}`, and its splits' template names the files: "
                f"`{{SPLIT}}/{ds}-{{SHARD_X_OF_Y}}.{{FILEFORMAT}}`") + "):", "",
            "```python", "import tensorflow_datasets as tfds",
            f"ds = tfds.builder_from_directory(\"OUTPUT/{ds}/{first_variant}\").as_dataset(split=\"train[:50%]\")",
            "```", ""]
    if configs:
        out += ["Hugging Face `datasets` reads the Parquet files through the `configs` above (one per variant):",
                "", "```python", "import datasets",
                f"ds = datasets.load_dataset(\"OUTPUT/{ds}\", \"{configs[0]['config_name']}\")",
                "# or, naming the files (a variant folder also holds TFRecords, so not data_dir= alone):",
                f"ds = datasets.load_dataset(\"parquet\", data_files={{\"train\": "
                f"\"OUTPUT/{ds}/{configs[0]['config_name']}/train/*.parquet\"}})", "```", ""]
    else:
        out += ["Hugging Face `datasets`: re-run with `--parquet` to write Parquet files and the `configs` "
                "that `datasets.load_dataset` reads.", ""]

    out += ["## Inputs", ""]
    rows = []
    for inp in manifest.get("inputs", []):
        rows.append([f"`{os.path.basename(str(inp.get('path', '')))}`", inp.get("dump_date") or "-",
                     inp.get("size_bytes", "-"), (inp.get("sha256") or "")[:16] or "-"])
    out += _table(["file", "dump date", "bytes", "sha256 (first 16)"], rows)

    out += ["## Counts", "", "Examples per variant and split:", ""]
    splits = list(manifest.get("splits", []))
    rows = [[v] + [written.get(v, {}).get(s, {}).get("examples", 0) for s in splits]
            + [sum(written.get(v, {}).get(s, {}).get("examples", 0) for s in splits)]
            for v in manifest.get("variants", [])]
    out += _table(["variant"] + splits + ["total"], rows)
    for v in manifest.get("variants", []):
        labels = sorted({lab for s in splits for lab in written.get(v, {}).get(s, {}).get("labels", {})})
        if not labels:
            continue
        out += [f"Labels of `{v}`:", ""]
        out += _table(["label"] + splits, [[f"`{lab}`"] + [written[v].get(s, {}).get("labels", {}).get(lab, 0)
                                                           for s in splits] for lab in labels])

    out += ["## Filters and thresholds", ""]
    opts = manifest.get("options", {})
    rows = [[f"`--{k}`", json.dumps(v)] for k, v in sorted(opts.items())
            if _THRESHOLD_OPTION.search(k) and v is not None]
    out += _table(["option", "value"], rows) if rows else ["(none)", ""]
    if quality:
        out += ["Quality stage (dedup, BLEU / BERTScore checks):", ""]
        out += _table(["setting", "value"], [[k, json.dumps(v, default=str)] for k, v in sorted(quality.items())
                                             if k not in ("dataset",)])
    rej = manifest.get("rejects_by_reason", {})
    if rej:
        out += ["Dropped inputs by stage and reason (all counted; a sample is in `rejects/`):", ""]
        out += _table(["stage:reason", "count"], sorted(rej.items(), key=lambda kv: (-kv[1], kv[0])))

    out += ["## Run settings", ""]
    info = {k: v for k, v in sorted(manifest.get("job_info", {}).items())
            if isinstance(v, (str, int, float, bool)) and k != "report"}
    out += _table(["setting", "value"], [[k, str(v)] for k, v in info.items()]) if info else ["(none)", ""]

    out += ["## Known limitations", ""] + [f"- {x}" for x in text.limitations] + [""]
    out += ["## Licence", "", license_text, ""]
    return "\n".join(out)
