"""Airflow DAG: mine every new English Wikipedia dump on Dataflow with `rewrite-mine all`.

Needs `apache-airflow-providers-apache-beam` and `apache-airflow-providers-google` on the
Airflow workers. Wikimedia publishes dumps dated the 1st and the 20th of each month; this DAG
runs on the 3rd and the 22nd for the dump of that date (copied to GCS by your mirror job).
The job itself is idempotent: a dump that was already published is "up to date" and costs
one listing, a new one is written beside the old under OUTPUT/<YYYYMMDD>/ and
OUTPUT/<dataset>.LATEST moves to it only when the whole run finished.

Variables (Admin -> Variables): rewrite_mine_project, rewrite_mine_region, rewrite_mine_bucket,
rewrite_mine_image (the worker image built from the Dockerfile).
"""
import datetime

from airflow import DAG
from airflow.models import Variable
from airflow.providers.apache.beam.operators.beam import BeamRunPythonPipelineOperator
from airflow.providers.google.cloud.operators.dataflow import DataflowConfiguration

PROJECT = Variable.get("rewrite_mine_project", default_var="my-project")
REGION = Variable.get("rewrite_mine_region", default_var="us-central1")
BUCKET = Variable.get("rewrite_mine_bucket", default_var="my-bucket")
IMAGE = Variable.get("rewrite_mine_image",
                     default_var=f"{REGION}-docker.pkg.dev/{PROJECT}/beam/rewrite-mining:0.1.0")
DUMP = "{{ logical_date.strftime('%Y%m') }}{{ '01' if logical_date.day < 20 else '20' }}"

with DAG(
    dag_id="rewrite_mine_enwiki",
    start_date=datetime.datetime(2024, 6, 1),
    schedule="0 6 3,22 * *",
    catchup=False,
    max_active_runs=1,
    default_args={"retries": 1, "retry_delay": datetime.timedelta(minutes=30)},
    tags=["rewrite-mining"],
) as dag:
    mine = BeamRunPythonPipelineOperator(
        task_id="rewrite_mine_all",
        runner="DataflowRunner",
        # `python -m pipelines.all ...` in a virtualenv with the project (your package index or a
        # wheel path); the Dataflow workers run the worker image, which has it already.
        py_file="pipelines.all",
        py_options=["-m"],
        py_requirements=["rewrite-mining==0.1.0"],
        py_interpreter="python3.11",
        py_system_site_packages=False,
        pipeline_options={
            "input": f"gs://{BUCKET}/enwiki/{DUMP}/enwiki-{DUMP}-pages-articles-multistream.xml.bz2",
            "history_input": f"gs://{BUCKET}/enwiki/{DUMP}/enwiki-{DUMP}-pages-meta-history*.xml*.bz2",
            "output": f"gs://{BUCKET}/rewrite-mining",
            "dump_date": "auto",
            "checksum": "metadata",
            "tsv": True,
            "preset": "paper",
            "temp_location": f"gs://{BUCKET}/tmp",
            "sdk_container_image": IMAGE,
            "max_num_workers": "200",
        },
        dataflow_config=DataflowConfiguration(
            job_name="rewrite-mine-{{ ds_nodash }}", project_id=PROJECT, location=REGION,
            wait_until_finished=True),
    )
