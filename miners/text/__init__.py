"""Text that every method reads: model-free and fast enough for whole dumps.

  wikitext.py   wikitext to plain text (templates, tables, references, redirects)
  segmenter.py  English sentence segmentation and word counts (the benchmarks' bare baseline)
  sentences.py  the segmenter of a run's language (English's, or one pass of per-script rules)
  tokens.py     word tokens of any language (WikiSplit's trigrams, BLEU)
"""
