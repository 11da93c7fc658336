"""SimSim: simplification pairs by back-translation through pivot languages, language-model selection
and simulated substitution, dropping and splitting.

  simulate.py       seeds, the checks of a back-translation, the simulated operations (s2, s3)
  translate.py      machine translators behind one interface (Apertium, the offline default)
  lm.py             language-model scorers (CMU's trigram model, offline; transformers; kenlm)
  english_words.py  the English word list that catches untranslated words
  ppdb.py           PPDB substitution, for users who have PPDB
  pair_files.py     complex-simple pairs from the files simplification datasets ship in
  metrics.py        the five simplification operation metrics (`rewrite-mine profile`)
  profile_report.py the profile's report

Beam stages: transforms/simsim.py; the jobs: pipelines/simsim.py, pipelines/profile.py.
"""
