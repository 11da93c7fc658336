"""A static HTML page per dataset: what a person looks at before using the data.

Pure Python over a small summary dict (aggregates computed in the pipeline),
no Beam. Plots are SVG drawn here and embedded as base64, so the page is one
self-contained file that opens from a bucket or a laptop (`png_bytes` stays
for the profile report's matplotlib figures).

Summary shape (every value small: counts and histograms, never the data):
  {
    "dataset": "splits",
    "label_counts": {(variant, split, label): n},
    "lengths": {field: {words: n}},          # word counts, capped at LENGTH_CAP
    "scores": {field: {bucket_low: n}},      # score fields, buckets of SCORE_BUCKET
    "rejects": {reason_counter_name: n},     # "<stage>/filtered:<reason>"
    "examples": {label: [record_json, ...]}, # a deterministic sample per label
    "anomalies": {slice: [plain-words description, ...]},
  }
"""
import base64
import html
import io
import json
import math
from typing import Dict

LENGTH_CAP = 120  # words; longer texts are counted in the last bin
FOLD_LABELS = 15  # a variant's label table with more rows starts folded (<details>)
SCORE_BUCKET = 0.05


def png_bytes(draw, width=6.4, height=3.2, dpi=80) -> bytes:
    """PNG of one matplotlib plot drawn by `draw(ax)`; no software tag or time: same bytes on a re-run."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(width, height), dpi=dpi)
    try:
        draw(ax)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", metadata={"Software": None})
    finally:
        plt.close(fig)
    return buf.getvalue()


def _plot_png(draw, width=6.4, height=3.2) -> str:
    return "data:image/png;base64," + base64.b64encode(png_bytes(draw, width, height)).decode("ascii")


def _img(src, alt):
    return f'<img src="{src}" alt="{html.escape(alt)}">'


# Small multiples: one panel per variant, the labels with the most examples in it, one colour per split.
PANEL_LABELS = 20  # labels drawn per panel (all of them are in the tables)
PANEL_COLUMNS = 3
SPLIT_COLOURS = {"train": "#4C72B0", "tune": "#8172B2", "validation": "#DD8452", "test": "#55A868"}
_OTHER_SPLIT_COLOURS = ("#C44E52", "#937860", "#DA8BC3", "#8C8C8C")


def _split_order(splits):
    known = [s for s in SPLIT_COLOURS if s in splits]
    return known + sorted(s for s in splits if s not in SPLIT_COLOURS)


def _top_labels(label_counts, variant, k):
    totals = {}
    for (v, _, lab), n in label_counts.items():
        if v == variant:
            totals[lab] = totals.get(lab, 0) + n
    return sorted(totals, key=lambda lab: (-totals[lab], lab))[:k], len(totals)


def length_axis_label(hist: Dict[int, int], cap: int = LENGTH_CAP) -> str:
    """The x label of a length histogram: names the capped last bin only when the data reached it."""
    longest = max(hist) if hist else 0
    if longest >= cap:
        return f"words (last bar: {cap} or more)"
    return f"words (longest: {longest})"


def _plural(n, word):
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# ---------------------------------------------------------------- plots as SVG
# The report's plots are drawn as SVG text here (no matplotlib): the report stage ends every run, one
# worker drawing while the others wait, and importing matplotlib and rendering the PNGs took 0.6-1.2 s of it
# (issue 19). Same figures: a bar chart per histogram, one panel of stacked bars per variant.
FONT = "font-family='sans-serif'"


def _num(x) -> str:
    """A coordinate or tick value, short and the same on every machine."""
    r = round(float(x), 2)
    return str(int(r)) if r == int(r) else f"{r:g}"


def nice_ticks(top: float, integer: bool = False, max_ticks: int = 6, bottom: float = 0.0):
    """Tick values from `bottom` to about `top` on a 1-2-2.5-5 x 10^k grid (integers only if `integer`)."""
    span = max(float(top) - float(bottom), 1e-12)
    raw = span / max_ticks
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    if integer:
        step = max(1, math.ceil(step))
    first = math.ceil(bottom / step - 1e-9) * step
    ticks, t = [], first
    while t <= top + 1e-9:
        ticks.append(round(t, 10))
        t += step
    return ticks


def _text(x, y, s, size=11, anchor="middle", extra=""):
    return (f"<text x='{_num(x)}' y='{_num(y)}' font-size='{size}' text-anchor='{anchor}' {FONT}{extra}>"
            f"{html.escape(str(s))}</text>")


def _svg(width, height, body) -> str:
    svg = (f"<svg xmlns='http://www.w3.org/2000/svg' width='{_num(width)}' height='{_num(height)}' "
           f"viewBox='0 0 {_num(width)} {_num(height)}'><rect width='100%' height='100%' fill='white'/>"
           + "".join(body) + "</svg>")
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _hist_plot(hist: Dict[float, int], xlabel, width, integer_x=False):
    """A histogram (bars from each bucket's low edge, `width` wide) as an SVG data URI, 512 x 192 px."""
    W, H, left, right, top, bottom = 512, 192, 52, 12, 10, 40
    xs = sorted(hist)
    lo, hi = (min(xs) - width * 0.5, max(xs) + width * 1.5) if xs else (0.0, 1.0)
    ymax = max(hist.values()) if hist else 1
    yticks = nice_ticks(ymax, integer=True)
    ytop = max(yticks[-1], ymax) * 1.05 or 1

    def px(x):
        return left + (x - lo) / (hi - lo) * (W - left - right)

    def py(y):
        return H - bottom - y / ytop * (H - top - bottom)

    body = [f"<line x1='{left}' y1='{_num(py(0))}' x2='{W - right}' y2='{_num(py(0))}' stroke='black'/>",
            f"<line x1='{left}' y1='{top}' x2='{left}' y2='{_num(py(0))}' stroke='black'/>"]
    for x in xs:
        x0, x1 = px(x), px(x + width)
        body.append(f"<rect x='{_num(x0)}' y='{_num(py(hist[x]))}' width='{_num(max(x1 - x0 - 0.5, 0.5))}' "
                    f"height='{_num(py(0) - py(hist[x]))}' fill='#4C72B0'><title>{_num(x)}: {hist[x]}</title></rect>")
    for t in nice_ticks(hi, integer=integer_x, bottom=lo):
        body.append(f"<line x1='{_num(px(t))}' y1='{_num(py(0))}' x2='{_num(px(t))}' y2='{_num(py(0) + 4)}' "
                    f"stroke='black'/>" + _text(px(t), py(0) + 15, _num(t), 10))
    for t in yticks:
        body.append(f"<line x1='{left - 4}' y1='{_num(py(t))}' x2='{left}' y2='{_num(py(t))}' stroke='black'/>"
                    + _text(left - 6, py(t) + 3.5, _num(t), 10, "end"))
    body.append(_text((left + W - right) / 2, H - 6, xlabel, 11))
    body.append(_text(12, (top + py(0)) / 2, "examples", 11,
                      extra=f" transform='rotate(-90 12 {_num((top + py(0)) / 2)})'"))
    return _svg(W, H, body)


def _label_plot(label_counts):
    """One horizontal bar panel per variant (top PANEL_LABELS labels), bars stacked by split; SVG data URI."""
    variants = sorted({k[0] for k in label_counts})
    splits = _split_order({k[1] for k in label_counts})
    colours = dict(SPLIT_COLOURS)
    colours.update({s: _OTHER_SPLIT_COLOURS[i % len(_OTHER_SPLIT_COLOURS)]
                    for i, s in enumerate(s for s in splits if s not in SPLIT_COLOURS)})
    ncols = min(PANEL_COLUMNS, len(variants))
    nrows = -(-len(variants) // ncols)
    tops = {v: _top_labels(label_counts, v, PANEL_LABELS) for v in variants}
    rows_per_panel = max(1, max(len(tops[v][0]) for v in variants))
    bar_h, head, foot, legend_h, panel_w = 17.6, 24, 38, 24, 312
    panel_h = head + bar_h * rows_per_panel + foot
    longest = max((len(lab) for v in variants for lab in tops[v][0]), default=4)
    gutter = min(150, 10 + 5.2 * longest)  # label text at 9 px: ~5.2 px a character
    body = []
    x = 8
    for s in splits:  # legend
        body.append(f"<rect x='{x}' y='7' width='12' height='12' fill='{colours[s]}'/>" + _text(x + 16, 17, s, 11, "start"))
        x += 24 + 7 * len(s)
    for i, v in enumerate(variants):
        ox, oy = (i % ncols) * panel_w, legend_h + (i // ncols) * panel_h
        labels, n_labels = tops[v]
        total = sum(n for (vv, _, _), n in label_counts.items() if vv == v)
        shown = (f"top {len(labels)} of {n_labels} labels" if n_labels > len(labels) else _plural(n_labels, "label"))
        body.append(_text(ox + panel_w / 2, oy + 15, f"{v}: {total} examples, {shown}", 11))
        x0, x1 = ox + gutter, ox + panel_w - 14
        base = oy + head + bar_h * rows_per_panel
        if not labels:
            body.append(_text((x0 + x1) / 2, oy + head + bar_h * rows_per_panel / 2, "no examples", 11))
        sums = {lab: sum(label_counts.get((v, s, lab), 0) for s in splits) for lab in labels}
        ticks = nice_ticks(max(sums.values(), default=1) or 1, integer=True)
        xmax = max(ticks[-1], max(sums.values(), default=1)) or 1

        def px(n):
            return x0 + n / xmax * (x1 - x0)

        for r, lab in enumerate(labels):  # most frequent on top
            y = oy + head + r * bar_h
            start = 0
            for s in splits:
                n = label_counts.get((v, s, lab), 0)
                if n:
                    body.append(f"<rect x='{_num(px(start))}' y='{_num(y + 2)}' width='{_num(px(start + n) - px(start))}' "
                                f"height='{_num(bar_h - 4)}' fill='{colours[s]}'><title>{html.escape(lab)}, "
                                f"{html.escape(s)}: {n}</title></rect>")
                start += n
            body.append(_text(x0 - 4, y + bar_h / 2 + 3, lab, 9, "end"))
        body.append(f"<line x1='{_num(x0)}' y1='{_num(base)}' x2='{_num(x1)}' y2='{_num(base)}' stroke='black'/>"
                    f"<line x1='{_num(x0)}' y1='{oy + head}' x2='{_num(x0)}' y2='{_num(base)}' stroke='black'/>")
        for t in ticks:
            body.append(f"<line x1='{_num(px(t))}' y1='{_num(base)}' x2='{_num(px(t))}' y2='{_num(base + 4)}' "
                        f"stroke='black'/>" + _text(px(t), base + 14, _num(t), 9))
        body.append(_text((x0 + x1) / 2, base + 30, "examples", 10))
    return _svg(panel_w * ncols, legend_h + panel_h * nrows, body)


def render_html(summary: dict) -> str:
    """The report page for one dataset."""
    ds = summary["dataset"]
    lc = {tuple(k): v for k, v in summary.get("label_counts", {}).items()}
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(ds)}: quality report</title>",
             "<meta name='viewport' content='width=device-width, initial-scale=1'>",
             "<style>body{font-family:sans-serif;max-width:1000px;margin:auto;padding:0 8px}"
             "table{border-collapse:collapse;max-width:100%}"
             "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;vertical-align:top;"
             "overflow-wrap:anywhere}td:not(:first-child){text-align:right}"
             "table.examples td{text-align:left}img{max-width:100%;height:auto}"
             "details.variant{margin:4px 0}summary{cursor:pointer}"
             ".bad{color:#a00}</style></head><body>",
             f"<h1>Dataset <code>{html.escape(ds)}</code></h1>"]
    total = sum(lc.values())
    parts.append(f"<p>{total} examples in {len({(k[0], k[1]) for k in lc})} variant/split slices, "
                 f"{len({k[2] for k in lc})} labels.</p>")

    # Anomalies first: the first thing to know.
    anomalies = summary.get("anomalies", {})
    n_anom = sum(len(v) for v in anomalies.values())
    parts.append("<h2>Schema validation</h2>")
    if n_anom:
        parts.append(f"<p class='bad'>{n_anom} anomalies:</p><ul>")
        for sl in sorted(anomalies):
            for d in anomalies[sl]:
                parts.append(f"<li class='bad'><b>{html.escape(sl)}</b>: {html.escape(d)}</li>")
        parts.append("</ul>")
    else:
        parts.append("<p>No anomalies: every split matches the curated schema.</p>")

    parts.append("<h2>Examples per label and split</h2>")
    if lc:
        variants = sorted({k[0] for k in lc})
        splits = _split_order({k[1] for k in lc})
        # Variant x split totals: a table that fits the page whatever the number of labels.
        parts.append("<table class='counts'><tr><th>variant</th>" + "".join(
            f"<th>{html.escape(s)}</th>" for s in splits) + "<th>total</th><th>labels</th></tr>")
        for v in variants:
            cells = [sum(n for (vv, ss, _), n in lc.items() if (vv, ss) == (v, s)) for s in splits]
            n_labels = len({k[2] for k in lc if k[0] == v})
            parts.append(f"<tr><td>{html.escape(v)}</td>" + "".join(f"<td>{c}</td>" for c in cells)
                         + f"<td>{sum(cells)}</td><td>{n_labels}</td></tr>")
        parts.append("</table>")
        parts.append("<div class='figure'>" + _img(_label_plot(lc), "examples per label, one panel per variant")
                     + "</div>")
        # One label x split table per variant; long ones folded so the page stays readable.
        for v in variants:
            labels = sorted({k[2] for k in lc if k[0] == v})
            table = ("<table class='labels'><tr><th>label</th>" + "".join(f"<th>{html.escape(s)}</th>"
                                                                         for s in splits) + "</tr>"
                     + "".join(f"<tr><td>{html.escape(lab)}</td>" + "".join(
                         f"<td>{lc.get((v, s, lab), 0)}</td>" for s in splits) + "</tr>" for lab in labels)
                     + "</table>")
            summary_line = f"{html.escape(v)}: {_plural(len(labels), 'label')}"
            opened = " open" if len(labels) <= FOLD_LABELS else ""
            parts.append(f"<details class='variant'{opened}><summary>{summary_line}</summary>{table}</details>")

    parts.append("<h2>Lengths (words)</h2>")
    for field, hist in sorted(summary.get("lengths", {}).items()):
        hist = {int(k): v for k, v in hist.items()}
        plot = _hist_plot(hist, length_axis_label(hist), 1, integer_x=True)
        parts.append(f"<h3>{html.escape(field)}</h3>" + _img(plot, f"{field} length"))
    scores = summary.get("scores", {})
    if scores:
        parts.append("<h2>Scores</h2>")
        for field, hist in sorted(scores.items()):
            hist = {float(k): v for k, v in hist.items()}
            parts.append(f"<h3>{html.escape(field)}</h3>" + _img(_hist_plot(hist, field, SCORE_BUCKET), field))

    parts.append("<h2>Rejects by reason</h2>")
    rej = summary.get("rejects", {})
    if rej:
        parts.append("<table><tr><th>stage/reason</th><th>count</th></tr>")
        for name, n in sorted(rej.items(), key=lambda kv: (-kv[1], kv[0])):
            parts.append(f"<tr><td>{html.escape(name)}</td><td>{n}</td></tr>")
        parts.append("</table>")
    else:
        parts.append("<p>No rejects counted.</p>")

    parts.append("<h2>Examples per label (deterministic sample)</h2>")
    for label, rows in sorted(summary.get("examples", {}).items()):
        parts.append(f"<h3>{html.escape(label)}</h3><table class='examples'>")
        for row in rows:
            d = json.loads(row)
            parts.append("<tr><td>" + "<br>".join(
                f"<b>{html.escape(k)}</b>: {html.escape(str(v))}" for k, v in d.items() if v not in ("", 0, 0.0, False))
                + "</td></tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


DERIVED_TITLES = {"table2": "Table 2 of the paper, for this output", "splitting": "Share of pairs that split"}


def derived_section(derived: dict) -> str:
    """HTML of a job's derived figures (manifest["derived"]): one table per figure set, a nested
    mapping becoming rows of (name, value) or, for {row: {column: value}}, a row/column table."""
    parts = []
    for key, value in sorted(derived.items()):
        parts.append(f"<h2>{html.escape(DERIVED_TITLES.get(key, key.replace('_', ' ')))}</h2>")
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            cols = sorted({c for v in value.values() for c in v})
            parts.append("<table><tr><th></th>" + "".join(f"<th>{html.escape(str(c))}</th>" for c in cols) + "</tr>")
            for row, cells in sorted(value.items()):
                parts.append(f"<tr><th>{html.escape(str(row))}</th>" + "".join(
                    f"<td>{html.escape(_fmt_value(cells.get(c, '')))}</td>" for c in cols) + "</tr>")
            parts.append("</table>")
        elif isinstance(value, dict):
            parts.append("<table>" + "".join(
                f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(_fmt_value(v))}</td></tr>"
                for k, v in sorted(value.items())) + "</table>")
        else:
            parts.append(f"<p>{html.escape(_fmt_value(value))}</p>")
    return "\n".join(parts)


def _fmt_value(v) -> str:
    if isinstance(v, float):
        return f"{v:,.4g}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_fmt_value(x)}" for k, x in sorted(v.items()))
    return str(v)


def add_derived(page: str, derived: dict) -> str:
    """The report page with the derived figures inserted before </body> (once: a rerun replaces them)."""
    start, end = "<!-- derived -->", "<!-- /derived -->"
    if start in page:
        page = page[:page.index(start)] + page[page.index(end) + len(end):]
    block = f"{start}\n{derived_section(derived)}\n{end}\n"
    return page.replace("</body>", block + "</body>") if "</body>" in page else page + block
