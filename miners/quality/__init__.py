"""What every job's quality stage uses (transforms/quality.py), whatever its method.

  dedup.py    exact keys and MinHash shingles of records
  scoring.py  sentence BLEU and BERTScore (with the bundled MiniLM)
  report.py   the static HTML report of a dataset
"""
