"""WikiSplit (Botha et al., EMNLP 2018): one sentence rewritten as two between adjacent revisions of a
Wikipedia page.

  splits.py   the split detection (trigram prefix/suffix match, BLEU, the paper's filters)
  resources/  the profanity list the release filters with

The history reader is shared (miners/sources/history.py); Beam stages: transforms/wikisplit.py;
the job: pipelines/wikisplit.py.
"""
