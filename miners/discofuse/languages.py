"""Which DiscoFuse rules a run's language gets: French its own (miners/discofuse/french.py), every other
language English's (miners/discofuse/rules.py), as before French had rules of its own.

    rules = for_language("fr")
    rules.single_may_match(words); rules.pair_may_match(words)   # the annotator's pre-check
    chains = rules.resolve(sentences)                            # built-in pronoun resolution
    examples, drops = rules.mine_document(doc, options, inc)
"""
import types

from miners.discofuse import rules as discofuse
from miners.discofuse import french as discofuse_fr
from miners.discofuse import coref
from miners.discofuse import coref_fr

ENGLISH = types.SimpleNamespace(language="en", single_may_match=discofuse.single_may_match,
                                pair_may_match=discofuse.pair_may_match, resolve=coref.resolve,
                                mine_document=discofuse.mine_document)
FRENCH = types.SimpleNamespace(language="fr", single_may_match=discofuse_fr.single_may_match,
                               pair_may_match=discofuse_fr.pair_may_match, resolve=coref_fr.resolve,
                               mine_document=discofuse_fr.mine_document)
#: Languages with rules of their own.
RULES = {"fr": FRENCH}


def for_language(language: str) -> types.SimpleNamespace:
    """The rules of `language` (a Wikipedia code); English's for a language without its own."""
    return RULES.get(language or "en", ENGLISH)
