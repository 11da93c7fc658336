"""A model's scores make the same records whatever a worker's thread count (issue 49).

The local runner gives each of N workers cpus/N BLAS and OpenMP threads (pipelines/framework/workers/warm.py),
and Flink or Spark workers get what their machine has. Before, the encoders took that count: on 1,000
WikiSplit pairs, CTranslate2's BERTScore with 2 threads gave another F1 than with 1 thread for 3 pairs (one
of them in its float32 bits, so in a record's bytes), and sentence-transformers' vectors in batches of 7 differed
for 2 of 1,500 sentences. ParaSCI's bytes then followed the worker count (11 of 24 files on a busy machine).
Now the encoders run with one thread (miners/nlp/ct2.py) and scores are rounded as records keep them
(schemas.base.quantize_score): records hash alike.

Input: 202 sentences of tests/testdata/wikisplit/tune.tsv (those around the pair whose F1 differed; the old
code's records hashed differently on them with 1 and 2 threads) (WikiSplit's tune split, real Wikipedia
text, CC BY-SA; tests/testdata/wikisplit/SOURCES.md).
"""
import os
import subprocess
import sys

from conftest import ROOT

SCRIPT = r'''
import hashlib, sys
from miners.nlp.embed import SentenceEmbedder
from miners.quality.scoring import EmbeddingBertScorer
from schemas.records import SciParaphraseExample
sents = []
for line in open(sys.argv[1], encoding="utf-8"):
    sents += [x for x in line.rstrip("\n").split("\t") if len(x) > 20]
sents = sents[600:802]  # where the old encoders differed between 1 and 2 threads
vectors = SentenceEmbedder(batch_size=7).load().encode(sents)
f1 = EmbeddingBertScorer(encoder="ct2").load().score(sents[1:201], sents[:200])
h = hashlib.sha256()
for i, f in enumerate(f1):
    r = SciParaphraseExample(src=sents[i], tgt=sents[i + 1], method="intra_paper",
                             similarity=float(vectors[i] @ vectors[i + 1]), bertscore=f)
    h.update(r.to_example())
    h.update(r.shard_key().encode())
print(h.hexdigest())
'''


def _digest(threads: int) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads))
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT / "tests" / "testdata" / "wikisplit" / "tune.tsv")],
                          capture_output=True, text=True, env=env, timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()[-1]


def test_records_of_the_encoders_scores_hash_alike_with_one_and_with_two_threads():
    one, two = _digest(1), _digest(2)
    assert len(one) == 64 and one == two
