#!/usr/bin/env bash
# Prove that Airflow loads, renders and can build the command line of deploy/airflow/rewrite_mine_dag.py.
#
# Airflow cannot be installed beside the project's pins (Beam 2.61, protobuf 4), so this makes a separate
# virtual environment (default /tmp/airflow-check-venv; reused when present) with Airflow 2.10.5 and the two
# providers the DAG imports, at the versions checked here (pip resolves the rest from PyPI), then, with a
# throw-away AIRFLOW_HOME and SQLite database:
#   1. loads the DAG folder in Airflow's own DagBag: no import error, the DAG and its task are there;
#   2. `airflow tasks render` renders the task's templated fields for a run date (the dump date, job name);
#   3. builds the Beam command line the operator runs, with the provider's own option formatting;
#   4. parses that command line with the project's `rewrite-mine all` parser (the repository's .venv).
# Nothing is run on Dataflow and no Variable needs to exist (the DAG has defaults). Needs the network once (pip).
#
# Usage: tools/check_airflow_dag.sh [VENV_DIR] [RUN_DATE]
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${1:-/tmp/airflow-check-venv}"
RUN_DATE="${2:-2024-06-22T06:00:00+00:00}"
PINS=("apache-airflow==2.10.5" "apache-airflow-providers-apache-beam==6.1.7" "apache-airflow-providers-google==19.0.0")
if [ ! -x "$VENV/bin/airflow" ]; then
  python3.11 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip
  "$VENV/bin/pip" install --quiet "${PINS[@]}"
fi
AIRFLOW_HOME="$(mktemp -d)"
trap 'rm -rf "$AIRFLOW_HOME"' EXIT
export AIRFLOW_HOME AIRFLOW__CORE__LOAD_EXAMPLES=False AIRFLOW__CORE__DAGS_FOLDER="$REPO/deploy/airflow"
export AIRFLOW__CORE__UNIT_TEST_MODE=False AIRFLOW__LOGGING__LOGGING_LEVEL=ERROR
"$VENV/bin/airflow" version | sed 's/^/airflow /'
"$VENV/bin/pip" list 2>/dev/null | grep -E "^apache-airflow-providers-(apache-beam|google) " || true
"$VENV/bin/airflow" db migrate > "$AIRFLOW_HOME/db.log" 2>&1 || { cat "$AIRFLOW_HOME/db.log"; exit 1; }
"$VENV/bin/python" - "$REPO/deploy/airflow" <<'PY'
import sys
from airflow.models import DagBag
bag = DagBag(dag_folder=sys.argv[1], include_examples=False)
print(f"DagBag: {len(bag.dags)} DAG(s), {len(bag.import_errors)} import error(s)")
for path, err in bag.import_errors.items():
    print(f"IMPORT ERROR {path}:\n{err}")
dag = bag.get_dag("rewrite_mine_enwiki")
assert not bag.import_errors and dag is not None, "the DAG did not load"
print(f"DAG {dag.dag_id}: schedule {dag.timetable.summary!r}, tasks {[t.task_id for t in dag.tasks]}")
PY
echo "--- airflow tasks render rewrite_mine_enwiki rewrite_mine_all $RUN_DATE"
"$VENV/bin/airflow" tasks render rewrite_mine_enwiki rewrite_mine_all "$RUN_DATE" 2>&1 | tee "$AIRFLOW_HOME/render.txt"
grep -q "pages-articles-multistream" "$AIRFLOW_HOME/render.txt"
"$VENV/bin/python" - "$REPO/deploy/airflow" "$RUN_DATE" "$AIRFLOW_HOME/argv.txt" <<'PY'
import sys
import pendulum
from airflow.models import DagBag
from airflow.providers.apache.beam.hooks.beam import beam_options_to_args
from airflow.utils.state import DagRunState
from airflow.utils.types import DagRunType
dag = DagBag(dag_folder=sys.argv[1], include_examples=False).get_dag("rewrite_mine_enwiki")
when = pendulum.parse(sys.argv[2])
run = dag.create_dagrun(run_id=f"check__{when.isoformat()}", run_type=DagRunType.MANUAL, execution_date=when,
                        data_interval=(when, when), state=DagRunState.RUNNING, external_trigger=True)
ti = run.get_task_instance("rewrite_mine_all")
ti.task = dag.get_task("rewrite_mine_all")
ti.render_templates()
op = ti.task
options = dict(op.pipeline_options, runner=op.runner, project=op.dataflow_config.project_id,
               region=op.dataflow_config.location, job_name=op.dataflow_config.job_name)
command = [op.py_interpreter, *op.py_options, op.py_file, *beam_options_to_args(options)]
print("--- the command line the operator runs (in a virtualenv with", op.py_requirements, ")")
print(" \\\n    ".join(command))
open(sys.argv[3], "w").write("\n".join(command[3:]))
assert "--input=gs://my-bucket/enwiki/20240620/enwiki-20240620-pages-articles-multistream.xml.bz2" in command \
    or when.day < 20, command
PY
# 4. the project's own `rewrite-mine all` parser takes that command line (Beam's options passed on to Beam)
PROJECT_PY="$REPO/.venv/bin/python"; [ -x "$PROJECT_PY" ] || PROJECT_PY=python3
PYTHONPATH="$REPO" "$PROJECT_PY" - "$AIRFLOW_HOME/argv.txt" 2>/dev/null <<'PY'
import sys
from pipelines.all import make_all_job
argv = open(sys.argv[1]).read().split("\n")
args, beam_args = make_all_job().parse_args(argv)
print(f"rewrite-mine all parses it: jobs {args.jobs}, preset {args.preset}; passed to Beam: {beam_args}")
print("OK")
PY
