"""Discovery (Sileo et al., NAACL 2019): consecutive sentences where the second starts with a discourse
marker and a comma.

  pairs.py    candidate pairs, the seed markers of English (PDTB), the sentence filters, balancing
  markers.py  the markers of other languages (lexicons such as UK_DiMLex, n-gram discovery)
  hard.py     DiscoveryHard: the 5-fold fastText filter of easy examples
  resources/  the marker lists, with their sources (resources/SOURCES.md)

Beam stages: transforms/discovery.py; the job: pipelines/discovery.py.
"""
