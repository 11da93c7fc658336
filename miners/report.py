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
SCORE_BUCKET = 0.05


def _plot_png(draw, width=6.4, height=3.2) -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(width, height), dpi=80)
    try:
        draw(ax)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", metadata={"Software": None})  # no timestamp: same bytes on a re-run
    finally:
        plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _img(src, alt):
    return f'<img src="{src}" alt="{html.escape(alt)}">'


def _label_plot(label_counts):
    labels = sorted({k[2] for k in label_counts})
    slices = sorted({(k[0], k[1]) for k in label_counts})

    def draw(ax):
        import matplotlib
        # One colour per slice (tab20 has 20), hatching once colours repeat; legend beside the plot.
        cmap = matplotlib.colormaps["tab20"]
        bottom = [0] * len(labels)
        for n, (v, s) in enumerate(slices):
            vals = [label_counts.get((v, s, lab), 0) for lab in labels]
            ax.barh(labels, vals, left=bottom, label=f"{v}/{s}", color=cmap(n % 20),
                    hatch="//" if n >= 20 else None)
            bottom = [a + b for a, b in zip(bottom, vals)]
        ax.set_xlabel("examples")
        ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        ax.tick_params(axis="y", labelsize=6 if len(labels) > 30 else 9)
    return _plot_png(draw, width=8.0, height=max(3.0, 0.16 * len(labels) + 1, 0.15 * len(slices) + 0.8))


def _hist_plot(hist: Dict[float, int], xlabel, width):
    xs = sorted(hist)

    def draw(ax):
        ax.bar(xs, [hist[x] for x in xs], width=width, align="edge")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("examples")
    return _plot_png(draw, height=2.4)


def render_html(summary: dict) -> str:
    """The report page for one dataset."""
    ds = summary["dataset"]
    lc = {tuple(k): v for k, v in summary.get("label_counts", {}).items()}
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(ds)}: quality report</title>",
             "<style>body{font-family:sans-serif;max-width:1000px;margin:auto}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;vertical-align:top}"
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
        slices = sorted({(k[0], k[1]) for k in lc})
        labels = sorted({k[2] for k in lc})
        parts.append(_img(_label_plot(lc), "examples per label"))
        parts.append("<table><tr><th>label</th>" + "".join(f"<th>{html.escape(v)}/{html.escape(s)}</th>"
                                                          for v, s in slices) + "</tr>")
        for lab in labels:
            parts.append(f"<tr><td>{html.escape(lab)}</td>" + "".join(
                f"<td>{lc.get((v, s, lab), 0)}</td>" for v, s in slices) + "</tr>")
        parts.append("</table>")

    parts.append("<h2>Lengths (words)</h2>")
    for field, hist in sorted(summary.get("lengths", {}).items()):
        hist = {int(k): v for k, v in hist.items()}
        plot = _hist_plot(hist, f"words (>= {LENGTH_CAP} in last bin)", 1)
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
        parts.append(f"<h3>{html.escape(label)}</h3><table>")
        for row in rows:
            d = json.loads(row)
            parts.append("<tr><td>" + "<br>".join(
                f"<b>{html.escape(k)}</b>: {html.escape(str(v))}" for k, v in d.items() if v not in ("", 0, 0.0, False))
                + "</td></tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)
