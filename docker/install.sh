#!/bin/sh
# Run by the Dockerfile's build stage: the project's dependencies, exactly the tested set (constraints.txt),
# with the extras asked for, into the venv (the project itself is installed in the final stage, --no-deps,
# so a change of code does not rebuild this layer).
#
#   install.sh EXTRAS TORCH_INDEX
#
# EXTRAS: "aws" for the slim image (the core: Discovery, WikiSplit, DiscoFuse with spaCy; S3), "all" for every
# job. With docker/wheelhouse/ in the build context (tools/build_image.sh fills it with `pip wheel` on the
# host) nothing is fetched: `--no-index`. Otherwise the wheels come from PyPI, and torch from TORCH_INDEX
# (PyTorch's CPU index: PyPI's Linux torch wheel pulls several GB of CUDA libraries).
# Run in a folder with setup.py and constraints.txt and no packages: `pip install .` then installs the
# dependencies and an empty distribution of the project, which is removed again.
set -eu
extras="$1"
torch_index="$2"
here="$(dirname "$0")"
spec=".${extras:+[$extras]}"
if [ -d "$here/wheelhouse" ]; then
  set -- --no-index --find-links "$here/wheelhouse"
else
  set -- --extra-index-url "$torch_index"
fi
# setuptools and wheel stay in the venv: the final stage builds the project with them, offline.
python -m pip install --no-cache-dir --disable-pip-version-check "$@" -c constraints.txt "setuptools>=68" wheel
python -m pip install --no-cache-dir --disable-pip-version-check "$@" -c constraints.txt "$spec"
python -m pip uninstall -y -q rewrite-mining
python -m pip check
# Files no job reads at run time, left out of the image (about 560 MB): TensorFlow's C++ headers (420 MB; TFDV
# needs TensorFlow's runtime, not its headers), libclang's library (a build-time binding TensorFlow requires,
# 60 MB) and the packages' own test suites (`tests` folders; `testing` modules stay).
site="$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
rm -rf "$site/tensorflow/include" "$site/clang/native"
find "$site" -depth -type d -name tests -prune -exec rm -rf {} +
python -c "import tensorflow, tensorflow_data_validation, apache_beam, spacy, pyarrow, scipy, pandas"
