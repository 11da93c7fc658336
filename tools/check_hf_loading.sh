#!/usr/bin/env bash
# Prove that Hugging Face `datasets` loads an output directory as it is.
#
# `datasets` cannot be installed beside Apache Beam 2.61's pins (its dill / multiprocess ranges), so
# this makes a separate virtual environment (default /tmp/hf-check-venv; reused when present),
# installs `datasets` and `pyarrow` into it, and loads OUTPUT/<dataset> written with `--parquet`
# two ways, through the card's YAML configs (load_dataset(DIR, <variant>)) and with the generic
# Parquet builder (load_dataset("parquet", data_files={split: DIR/<variant>/<split>/*.parquet})),
# and compares the row counts with the manifest. Needs the network once (pip); the project's own
# tests read the Parquet files back with pyarrow instead (tests/pipelines/framework/test_tfds.py).
#
# Usage: tools/check_hf_loading.sh OUTPUT/<dataset> [VENV_DIR]
set -euo pipefail
DATASET_DIR="${1:?usage: tools/check_hf_loading.sh OUTPUT/<dataset> [VENV_DIR]}"
VENV="${2:-/tmp/hf-check-venv}"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import datasets" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip
  "$VENV/bin/pip" install --quiet datasets pyarrow
fi
HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 "$VENV/bin/python" - "$DATASET_DIR" <<'PY'
import json, os, sys
import datasets

root = os.path.abspath(sys.argv[1])
manifest = json.load(open(os.path.join(root, "manifest.json")))
written = manifest["counts"]["written"]
print(f"datasets {datasets.__version__}; {manifest['dataset']} at {root}")
failures = 0
for config in manifest["loaders"]["parquet"]["configs"]:
    variant = config["config_name"]
    want = {s["split"]: written[variant][s["split"]]["examples"] for s in config["data_files"]}
    dd = datasets.load_dataset(root, variant)  # the card's YAML configs
    got = {split: dd[split].num_rows for split in dd}
    ok = got == want
    failures += not ok
    print(f"  load_dataset(DIR, {variant!r}): {got} {'== manifest' if ok else '!= manifest ' + str(want)}")
    if "train" in dd and dd["train"].num_rows:
        row = dd["train"][0]
        print(f"    first train row: {json.dumps({k: row[k] for k in list(row)[:3]}, ensure_ascii=False)[:200]}")
    # The generic Parquet builder, given the same globs (a variant folder also holds TFRecords and TFDS
    # metadata, so data_dir= alone would hand those to the Parquet reader).
    files = {s["split"]: os.path.join(root, s["path"]) for s in config["data_files"]}
    plain = datasets.load_dataset("parquet", data_files=files)
    got_plain = {split: plain[split].num_rows for split in plain}
    ok = got_plain == want
    failures += not ok
    print(f"  load_dataset('parquet', data_files=<{variant}/<split>/*.parquet>): {got_plain} "
          f"{'== manifest' if ok else '!= manifest'}")
print("OK" if not failures else f"FAILED: {failures} config(s)")
sys.exit(1 if failures else 0)
PY
