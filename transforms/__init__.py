"""Beam transforms of the mining jobs.

Imported by the driver before it builds a pipeline and by every worker
before it unpickles this project's DoFns, so process-wide settings that must
precede a library's import live here.
"""
import os

# TensorFlow 2.16 (imported by TFDV for the statistics stage) eagerly imports Keras 3 at start-up, and
# Keras 3 imports matplotlib.pyplot and scikit-learn with it: ~1.2 s of every process that computes
# statistics (each worker, and the driver when it runs the job in-process; it no longer imports TFDV to build
# the pipeline; measured on `import tensorflow_data_validation`, 4.0 s -> 2.8 s).
# Nothing in this project uses tf.keras. With TF_USE_LEGACY_KERAS TensorFlow looks for the `tf_keras`
# package instead, which is not installed, and skips the eager import. A value set by the user wins.
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

# Beam's S3 filesystem builds a boto3 client for every file operation; share one per process (s3_clients.py).
from transforms import s3_clients  # noqa: E402  pylint: disable=wrong-import-position

s3_clients.share()
