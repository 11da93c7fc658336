"""DiscoFuse (Geva et al., NAACL 2019): dependency rules that split a fused sentence (or pair) into two;
the original becomes the fusion target.

  rules.py      the rule machinery every language shares (matching, rendering, the document loop)
                and English's rules
  french.py     French's rules (a run's --language fr)
  languages.py  which rules and which coreference resolver a run's language gets
  coref.py      English pronoun anaphora and cataphora
  coref_fr.py   French subject pronouns (gender and number from the parser's morphology)

Parsing is shared (miners/nlp/annotators.py); Beam stages: transforms/discofuse.py and
transforms/annotate.py; the job: pipelines/discofuse.py.
"""
