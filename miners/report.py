"""A static HTML page per dataset: what a person looks at before using the data.

Pure Python over a small summary dict (aggregates computed in the pipeline),
no Beam. Plots are matplotlib PNGs embedded as base64, so the page is one
self-contained file that opens from a bucket or a laptop.

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


def _label_plot(label_counts):
    """One horizontal bar panel per variant (top PANEL_LABELS labels), bars stacked by split."""
    variants = sorted({k[0] for k in label_counts})
    splits = _split_order({k[1] for k in label_counts})
    colours = dict(SPLIT_COLOURS)
    colours.update({s: _OTHER_SPLIT_COLOURS[i % len(_OTHER_SPLIT_COLOURS)]
                    for i, s in enumerate(s for s in splits if s not in SPLIT_COLOURS)})
    ncols = min(PANEL_COLUMNS, len(variants))
    nrows = -(-len(variants) // ncols)
    rows_per_panel = max(len(_top_labels(label_counts, v, PANEL_LABELS)[0]) for v in variants)
    panel_h = 0.22 * rows_per_panel + 0.9

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.9 * ncols, panel_h * nrows + 0.5), dpi=80, squeeze=False)
    try:
        for i, ax in enumerate(axes.flat):
            if i >= len(variants):
                ax.axis("off")
                continue
            v = variants[i]
            labels, n_labels = _top_labels(label_counts, v, PANEL_LABELS)
            labels = labels[::-1]  # most frequent on top
            left = [0] * len(labels)
            for s in splits:
                vals = [label_counts.get((v, s, lab), 0) for lab in labels]
                ax.barh(labels, vals, left=left, color=colours[s], label=s)
                left = [a + b for a, b in zip(left, vals)]
            total = sum(n for (vv, _, _), n in label_counts.items() if vv == v)
            shown = (f"top {len(labels)} of {n_labels} labels" if n_labels > len(labels)
                     else _plural(n_labels, "label"))
            ax.set_title(f"{v}: {total} examples, {shown}", fontsize=9)
            ax.tick_params(axis="y", labelsize=7)
            ax.tick_params(axis="x", labelsize=7)
            ax.set_ylim(-0.6, max(rows_per_panel, 1) - 0.4)  # same bar height in every panel
            if not labels:
                ax.text(0.5, 0.5, "no examples", ha="center", va="center", transform=ax.transAxes)
            ax.set_xlabel("examples", fontsize=8)
        handles = [matplotlib.patches.Patch(color=colours[s], label=s) for s in splits]
        fig.legend(handles=handles, loc="upper center", ncol=len(splits), frameon=False, fontsize=8)
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / (panel_h * nrows + 0.5)))
        buf = io.BytesIO()
        fig.savefig(buf, format="png", metadata={"Software": None})
    finally:
        plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def length_axis_label(hist: Dict[int, int], cap: int = LENGTH_CAP) -> str:
    """The x label of a length histogram: names the capped last bin only when the data reached it."""
    longest = max(hist) if hist else 0
    if longest >= cap:
        return f"words (last bar: {cap} or more)"
    return f"words (longest: {longest})"


def _plural(n, word):
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _hist_plot(hist: Dict[float, int], xlabel, width, integer_x=False):
    xs = sorted(hist)

    def draw(ax):
        from matplotlib.ticker import MaxNLocator
        ax.bar(xs, [hist[x] for x in xs], width=width, align="edge")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        if integer_x:  # word counts: no "12.5 words" ticks
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(xlabel)
        ax.set_ylabel("examples")
        if xs:  # the axis spans the data, not the cap
            ax.set_xlim(min(xs) - width * 0.5, max(xs) + width * 1.5)
    return _plot_png(draw, height=2.4)


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
