"""Run at the start of every Python process of the worker image (the venv's sitecustomize): log records
have credentials masked (pipelines/framework/credentials.py). Beam's SDK worker, started by Beam's boot
program in a container, logs its pipeline options, which carry `--s3_secret_access_key` when a user gives it."""
try:
    from pipelines.framework import credentials

    credentials.install()
except Exception:  # pylint: disable=broad-except  (never stop a process from starting)
    pass
