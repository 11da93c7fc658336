"""The dataset card's licence comes from the run's inputs (issue 52): Wikimedia dumps are Wikipedia's
(CC BY-SA 4.0), other inputs what the user declares with --input_license, else "unknown, see inputs"."""
import yaml

from pipelines.framework import dataset_card
from schemas.records import FusionExample


def _card(paths, **options):
    manifest = {"dataset": "fusion-fr", "language": "fr", "job": "discofuse", "record": FusionExample.__name__,
                "variants": ["full"], "splits": ["train"], "release_columns": list(FusionExample.RELEASE_COLUMNS),
                "counts": {"written": {"full": {"train": {"examples": 1, "labels": {}}}}},
                "inputs": [{"path": p, "dump_date": "", "size_bytes": 1, "sha256": "ab" * 32} for p in paths],
                "options": {"format": "auto", **options}, "rejects_by_reason": {}, "job_info": {}}
    text = dataset_card.render_card(manifest)
    licence = text.split("## Licence\n\n", 1)[1].strip()
    return yaml.safe_load(text.split("---\n")[1])["license"], licence


def test_a_dump_run_keeps_wikipedias_licence():
    lid, words = _card(["/d/frwiki-20240601-pages-articles1.xml.bz2"])
    assert lid == "cc-by-sa-4.0" and words == dataset_card.CARDS["fusion"].license


def test_conllu_and_jsonl_inputs_without_a_declared_licence_are_unknown():
    # was cc-by-sa-4.0 for a run over UD Sequoia (LGPL-LR) and PUD (CC BY-SA 3.0)
    lid, words = _card(["/d/fr_sequoia.jsonl", "/d/fr_pud-ud-test.conllu"])
    assert lid == "unknown"
    assert words.startswith("Unknown, see inputs: the licence of `fr_pud-ud-test.conllu`, `fr_sequoia.jsonl` "
                            "was not declared (`--input_license`)")
    assert "CC BY-SA" not in words and "/d/" not in words


def test_a_declared_licence_is_the_cards():
    lid, words = _card(["/d/fr_sequoia.jsonl"], input_license="lgpl-lr")
    assert lid == "lgpl-lr" and words.startswith("lgpl-lr, as declared for `fr_sequoia.jsonl` with `--input_license`")
    lid, words = _card(["/d/fr_sequoia.jsonl"], input_license="LGPL-LR (Lesser General Public License For "
                                                              "Linguistic Resources)")
    assert lid == "other" and words.startswith("LGPL-LR (Lesser General Public License For Linguistic Resources), as")


def test_dumps_beside_other_inputs_name_both():
    lid, words = _card(["/d/frwiki-20240601-pages-articles1.xml.bz2", "/d/news.jsonl"], input_license="cc-by-4.0")
    assert lid == "other" and "`news.jsonl`" in words and "Wikipedia dump inputs are CC BY-SA 4.0" in words
    lid, _ = _card(["/d/frwiki-20240601-pages-articles1.xml.bz2", "/d/news.jsonl"], input_license="cc-by-sa-4.0")
    assert lid == "cc-by-sa-4.0"


def test_paper_inputs_keep_the_papers_licence():
    manifest_card = dataset_card.CARDS["sci_para"]
    assert dataset_card.input_license({"inputs": [{"path": "x.json"}], "options": {}}, manifest_card) == (
        manifest_card.license_id, manifest_card.license)


def test_the_option_is_every_jobs():
    from pipelines.discofuse import JOB
    args = JOB.make_parser().parse_args(["--input", "x.conllu", "--output", "o", "--input_license", "lgpl-lr"])
    assert args.input_license == "lgpl-lr"


def test_the_manifests_allow_non_ascii_is_the_value_the_run_used():
    # issue 52: a French run's manifest said options.allow_non_ascii: false beside job_info ascii_only: False
    from pipelines.discofuse import JOB, options_from_args
    from pipelines.framework.publication import semantic_options
    parser = JOB.make_parser()
    for argv, allowed in ((["--language", "fr"], True), ([], False), (["--allow_non_ascii"], True),
                          (["--language", "fr", "--allow_non_ascii"], True)):
        args = parser.parse_args(["--input", "x.jsonl", "--output", "o"] + argv)
        options = options_from_args(args)
        assert options.ascii_only is not allowed
        assert semantic_options(args)["allow_non_ascii"] is allowed, argv


def test_known_limitations_point_to_the_run_settings_where_they_stand():
    # issue 52: "the coreference named under run settings below" stood after the run settings
    text = dataset_card.render_card({"dataset": "fusion", "job": "discofuse", "record": FusionExample.__name__,
                                     "variants": [], "splits": [], "release_columns": [], "counts": {"written": {}},
                                     "inputs": [], "options": {}, "rejects_by_reason": {},
                                     "job_info": {"coreference": "builtin"}})
    settings, limitations = text.index("## Run settings"), text.index("## Known limitations")
    assert settings < limitations
    assert "under Run settings above" in text and "settings below" not in text[limitations:]
