"""The HTML report reads at a glance: small multiples per variant, tables that fit, honest axis labels.

The structure is checked on the HTML; the page in a real browser (headless
Chromium, the Debian package `chromium` that `make test` installs; skipped when it
is not installed) by measuring the rendered page's width, reading its laid-out
text and looking at a screenshot's pixels. The checklist a person follows is docs/REPORT_CHECKLIST.md.
"""
import base64
import json
import re
import shutil
import subprocess
from xml.etree import ElementTree

import pytest

from conftest import ROOT
from miners.quality import report

VARIANTS = ("adv", "base", "big", "hard", "shuffled", "top10")
SPLITS = ("train", "validation", "test")
LABELS = [f"marker_number_{i}," for i in range(40)]


def _summary(longest=32):
    lc = {}
    for vi, v in enumerate(VARIANTS):
        for si, s in enumerate(SPLITS):
            for li, lab in enumerate(LABELS[: 10 + 6 * vi]):
                lc[json.dumps([v, s, lab])] = (li % 7 + 1) * (3 - si)
    return {"dataset": "markers",
            "label_counts": {tuple(json.loads(k)): n for k, n in lc.items()},
            "lengths": {"sentence1": {str(w): 10 for w in range(3, longest + 1)}},
            "scores": {},
            "rejects": {"read/filtered:not_english": 5},
            "examples": {LABELS[0]: [json.dumps({"sentence1": "A " * 300, "sentence2": "B.", "label_name": "x"})]},
            "anomalies": {}}


def _svg(data_uri):
    return base64.b64decode(data_uri.split(",", 1)[1]).decode("utf-8")


def _svg_size(data_uri):
    root = ElementTree.fromstring(_svg(data_uri))  # well-formed XML, or this raises
    return float(root.get("width")), float(root.get("height"))


def test_label_counts_are_small_multiples_and_tables_that_fit():
    page = report.render_html(_summary())
    imgs = re.findall(r'<img src="(data:image/svg\+xml;base64,[^"]+)" alt="([^"]*)"', page)
    label_imgs = [src for src, alt in imgs if alt.startswith("examples per label")]
    assert len(label_imgs) == 1
    width, height = _svg_size(label_imgs[0])
    assert width <= 1000  # three panels a row fit the 1000px page
    assert height < 2000  # six variants, at most PANEL_LABELS bars each
    svg = _svg(label_imgs[0])
    # One titled panel per variant; each shows its top PANEL_LABELS labels, the most frequent first.
    for vi, v in enumerate(VARIANTS):
        n = 10 + 6 * vi
        shown = f"top {report.PANEL_LABELS} of {n} labels" if n > report.PANEL_LABELS else f"{n} labels"
        assert f">{v}: " in svg and f"examples, {shown}<" in svg
    assert svg.count("<title>marker_number_6,, train: ") == len(VARIANTS)  # the largest, in every panel
    assert "marker_number_35," not in svg  # only in the largest variant, and not among its top 20
    assert all(f">{s}</text>" in svg for s in SPLITS)  # the legend
    # Variant x split totals: one row per variant, a handful of columns.
    counts = page.split("<table class='counts'>")[1].split("</table>")[0]
    assert counts.count("<tr>") == 1 + len(VARIANTS)
    assert counts.count("<th>") == 1 + len(SPLITS) + 2
    assert "<th>train</th><th>validation</th><th>test</th>" in counts  # canonical split order
    # One label table per variant, folded when long; no table has variant x split columns.
    details = re.findall(r"<details class='variant'( open)?><summary>([^<]*)</summary>", page)
    assert [d[1].split(":")[0] for d in details] == list(VARIANTS)
    assert [bool(d[0]) for d in details] == [10 + 6 * i <= report.FOLD_LABELS for i in range(len(VARIANTS))]
    assert max(t.count("<th>") for t in page.split("<table")[1:]) <= len(SPLITS) + 3
    assert "adv/train" not in page


def test_length_axis_names_the_capped_bin_only_when_reached():
    assert report.length_axis_label({3: 1, 32: 4}) == "words (longest: 32)"
    assert report.length_axis_label({3: 1, report.LENGTH_CAP: 2}) == f"words (last bar: {report.LENGTH_CAP} or more)"
    page = report.render_html(_summary(longest=32))
    assert f">= {report.LENGTH_CAP}" not in page
    lengths = re.findall(r'<img src="(data:image/svg\+xml;base64,[^"]+)" alt="sentence1 length"', page)
    svg = _svg(lengths[0])
    assert "words (longest: 32)" in svg
    assert svg.count("<rect x=") == 32 - 3 + 1  # one bar per length


def test_axis_ticks_are_round_numbers_within_the_data():
    assert report.nice_ticks(7, integer=True) == [0, 2, 4, 6]
    assert report.nice_ticks(1234) == [0, 250, 500, 750, 1000]
    assert report.nice_ticks(0.97, bottom=0.15) == [0.2, 0.4, 0.6, 0.8]
    assert report.nice_ticks(3, integer=True, max_ticks=6) == [0, 1, 2, 3]  # never "0.5 examples"


def test_plots_are_the_same_bytes_on_a_re_run():
    assert report.render_html(_summary()) == report.render_html(_summary())


def _chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


NO_CHROMIUM = "headless Chromium not installed (Debian package chromium: `make test` installs it, tools/system_packages.sh)"


def test_chromium_is_a_debian_package_that_make_test_installs():
    # `make test` runs tools/system_packages.sh --test: the jobs' list and the tests' own (Chromium);
    # `make sample` and the Dockerfile install the jobs' list only.
    def listed(name):
        return [ln.split("#")[0].strip() for ln in (ROOT / "tools" / name).read_text().splitlines()]
    assert "chromium" in listed("debian-packages-test.txt") and "chromium" not in listed("debian-packages.txt")
    makefile = (ROOT / "Makefile").read_text()
    assert "tools/system_packages.sh --test" in makefile and "test-install: system-packages-test " in makefile


def _run_chromium(tmp_path, page, *flags):
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    # --no-sandbox: Chromium's sandbox refuses to start as root (containers, CI).
    return subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           *flags, path.as_uri()], capture_output=True, text=True, timeout=120, cwd=tmp_path)


@pytest.mark.skipif(not _chromium(), reason=NO_CHROMIUM)
def test_report_screenshot_shows_the_page(tmp_path):
    """What a person sees in the browser: headings, numbers and the bars of the label chart."""
    summary = _summary()
    page = report.render_html(summary)
    total = sum(summary["label_counts"].values())
    # The text a person reads, as the browser lays it out (its DOM after scripts and layout).
    probe = ("<script>document.title='T'+document.body.innerText.length+'|'+document.images.length+'|'"
             "+[...document.images].filter(i=>i.complete&&i.naturalWidth>0).length</script></body>")
    out = _run_chromium(tmp_path, page.replace("</body>", probe), "--window-size=1024,800", "--dump-dom")
    m = re.search(r"<title>T(\d+)\|(\d+)\|(\d+)</title>", out.stdout)
    assert m, out.stderr[-2000:]
    text_length, images, loaded = map(int, m.groups())
    assert text_length > 1000 and images >= 2 and loaded == images  # every SVG chart decoded
    for heading in ("Schema validation", "Examples per label and split", "Rejects by reason"):
        assert f"<h2>{heading}</h2>" in out.stdout
    assert f"{total} examples in {len(VARIANTS) * len(SPLITS)} variant/split slices" in out.stdout

    png = tmp_path / "report.png"
    out = _run_chromium(tmp_path, page, "--window-size=1024,3000", f"--screenshot={png}")
    assert png.exists(), out.stderr[-2000:]
    image = pytest.importorskip("PIL.Image").open(png).convert("RGB")
    assert image.size == (1024, 3000)
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # text, bars and anti-aliasing: no blank page
    white = sum(n for n, c in colours if c == (255, 255, 255))
    assert white < 0.97 * image.size[0] * image.size[1]
    # The split colours of the label chart are on screen (report.SPLIT_COLOURS), in solid runs of bars.
    counts = {c: n for n, c in colours}
    for split in SPLITS:
        rgb = tuple(int(report.SPLIT_COLOURS[split][i:i + 2], 16) for i in (1, 3, 5))
        assert counts.get(rgb, 0) > 500, (split, rgb)
    # Dark text in the first screen (the title and the first lines).
    top = image.crop((0, 0, 1024, 200)).getcolors(maxcolors=1 << 20)
    assert sum(n for n, c in top if max(c) < 80) > 200


@pytest.mark.skipif(not _chromium(), reason=NO_CHROMIUM)
def test_page_fits_a_1024px_browser_window(tmp_path):
    """Real layout: the rendered page is no wider than the window (no horizontal scrolling)."""
    page = report.render_html(_summary())
    probe = ("<script>document.title='W'+document.documentElement.scrollWidth+'/'"
             "+document.documentElement.clientWidth</script></body>")
    path = tmp_path / "report.html"
    path.write_text(page.replace("</body>", probe), encoding="utf-8")
    out = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1024,800",
                          "--dump-dom", path.as_uri()], capture_output=True, text=True, timeout=120)
    m = re.search(r"<title>W(\d+)/(\d+)</title>", out.stdout)
    assert m, out.stderr[-2000:]
    scroll_width, client_width = int(m.group(1)), int(m.group(2))
    assert scroll_width <= client_width <= 1024


def test_derived_figures_become_a_section_of_the_report_once():
    page = "<html><body><h1>r</h1></body></html>"
    derived = {"table2": {"pairs": 86, "avg_words": 23.34, "self_bleu": 16.75,
                          "per_method": {"intra_paper": 73, "partial": 13}},
               "splitting": {"s1": {"pairs": 59, "share_split": 1.0}, "s2": {"pairs": 12, "share_split": 0.5}}}
    once = report.add_derived(page, derived)
    assert "Table 2 of the paper" in once and "<td>86</td>" in once and "intra_paper: 73" in once
    assert "<th>share_split</th>" in once and "<th>s2</th>" in once
    assert once.index("Table 2") < once.index("</body>")
    twice = report.add_derived(once, {"table2": {"pairs": 5}})
    assert twice.count("<!-- derived -->") == 1 and "<td>5</td>" in twice and "<td>86</td>" not in twice
