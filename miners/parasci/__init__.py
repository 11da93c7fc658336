"""ParaSCI (Dong et al., EACL 2021): scientific paraphrases inside papers and across papers (the same
term defined, the same paper cited).

  pairs.py          sentences of a paper, the groups searched, candidate pairs, Table 2's figures
  neighbors.py      the nearest-neighbour search within a group (blocked, never all pairs)
  decision.py       is a candidate a paraphrase: rules, features and a logistic model
                    (resources/decision.json)
  partial.py        partial paraphrases: the part of a long sentence that paraphrases a short one
  abbreviations.py  abbreviations and their long forms as a paper defines them (Schwartz and Hearst)
  papers/           the readers of papers, one file per format (S2ORC, GROBID TEI, JATS)

BERTScore is shared (miners/quality/scoring.py); Beam stages: transforms/parasci.py and
transforms/papers.py; the job: pipelines/parasci.py.
"""
