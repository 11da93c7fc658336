"""Reader/cleaner throughput on the real sample, as ratios to a raw baseline (bz2 + iterparse) measured in the same run."""
import bz2, sys, time, tracemalloc, xml.etree.ElementTree as ET, resource
import os
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from miners.sources import iter_wiki_articles
from miners.text.wikitext import clean_wikitext
from tests.testdata.readers import build

def raw_baseline():
    n = 0; texts = []
    with bz2.open(build.EN) as f:
        for _, el in ET.iterparse(f):
            if el.tag.endswith("}page"):
                n += 1
                if el.find("{*}ns").text == "0" and el.find("{*}redirect") is None:
                    texts.append(el.find("{*}revision/{*}text").text or "")
                el.clear()
    return n, texts

def timed(fn, reps=3):
    best = None
    for _ in range(reps):
        t = time.process_time(); r = fn(); dt = time.process_time() - t
        best = dt if best is None or dt < best else best
    return best, r

def peak(fn):
    tracemalloc.start(); fn(); p = tracemalloc.get_traced_memory()[1]; tracemalloc.stop(); return p

t_raw, (n_pages, texts) = timed(raw_baseline)
t_clean, _ = timed(lambda: [clean_wikitext(t) for t in texts])


def clean_full_tree(wikitext):
    """The cleaner before issue 19: mwparserfromhell's whole node tree built, then walked."""
    import mwparserfromhell
    from miners.text import wikitext as w
    out = []
    w._walk(mwparserfromhell.parse(w.prestrip(wikitext, w.SEAM), skip_style_tags=False), 0, out)
    return w._normalise("".join(out))


t_tree, tree_out = timed(lambda: [clean_full_tree(t) for t in texts])
t_read, out = timed(lambda: list(iter_wiki_articles(build.EN, build.EN, "b")))
mb = sum(len(t.encode()) for t in texts) / 1e6
print(f"raw bz2+iterparse: {n_pages/t_raw:.0f} pages/s  ({t_raw:.2f} s CPU)")
print(f"clean_wikitext:    {len(texts)/t_clean:.1f} articles/s, {mb/t_clean:.2f} MB wikitext/s (CPU time)")
print(f"clean_wikitext vs full-tree walk (before issue 19): {t_tree/t_clean:.2f}x faster, "
      f"{sum(a != b for a, b in zip(tree_out, [clean_wikitext(t) for t in texts]))} of {len(texts)} articles differ")
print(f"iter_wiki_articles:{n_pages/t_read:.1f} pages/s = {(n_pages/t_read)/(n_pages/t_raw):.3f} x raw baseline; "
      f"articles {len(texts)/t_read:.1f}/s")
p_raw = peak(raw_baseline); p_read = peak(lambda: sum(1 for _ in iter_wiki_articles(build.EN, build.EN, 'b')))
print(f"peak traced memory: raw {p_raw/1e6:.1f} MB, reader {p_read/1e6:.1f} MB, ratio {p_read/p_raw:.2f}")
