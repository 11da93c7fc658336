"""Plots and the HTML page of an operation-metric profile (`rewrite-mine profile`).

Input: one dict per dataset, in the order given, holding `name` and the keys of
`miners.simsim.metrics.summarize` (`pairs`, `split_share`, `metrics`). One PNG per metric with every dataset overlaid on the same bins,
each histogram normalised to fractions of its dataset's pairs (the SimSim paper's Figure 1),
a bar chart of the share of pairs that split, and a page with both plus the split-share
table (the paper's Table 2). matplotlib with the Agg backend; PNGs carry no timestamp or
software tag, so the same summaries give the same bytes.
"""
import base64
import html
from typing import Dict, List, Sequence

METRIC_LABELS = {
    "alignment": "alignment: BERTScore F1(simple, complex)",
    "substitution": "substitution: share of simple tokens from simplifying PPDB rules",
    "dropping": "dropping: share of complex tokens discarded",
    "reordering": "reordering: Jaccard similarity of dependency relations",
    "splitting": "splitting: share of pairs whose simple side has more sentences",
}
HISTOGRAM_METRICS = ("alignment", "substitution", "dropping", "reordering")


def _png(draw, width=6.4, height=3.4) -> bytes:
    """PNG bytes of one matplotlib plot (the report's renderer, at 100 dpi)."""
    from miners.quality.report import png_bytes
    return png_bytes(draw, width, height, dpi=100)


def _colour(i: int):
    import matplotlib
    return matplotlib.colormaps["tab10"](i % 10)


def histogram_png(metric: str, datasets: Sequence[dict]) -> bytes:
    """Overlaid normalised histograms of one metric over the datasets."""
    def draw(ax):
        for i, d in enumerate(datasets):
            hist = d["metrics"].get(metric, {}).get("histogram")
            if not hist:
                continue
            colour = _colour(i)
            ax.stairs(hist["fractions"], hist["edges"], fill=True, alpha=0.25, color=colour)
            ax.stairs(hist["fractions"], hist["edges"], color=colour, linewidth=1.6,
                      label=f"{d['name']} (n={d['metrics'][metric]['count']})")
        ax.set_xlim(0, 1)
        ax.set_xlabel(METRIC_LABELS[metric])
        ax.set_ylabel("fraction of pairs")
        ax.legend(fontsize="small", frameon=False)
    return _png(draw)


def split_share_png(datasets: Sequence[dict]) -> bytes:
    """Bars of the share of pairs that split, one per dataset."""
    def draw(ax):
        names = [d["name"] for d in datasets]
        shares = [d["split_share"] for d in datasets]
        bars = ax.bar(range(len(names)), shares, color=[_colour(i) for i in range(len(names))])
        for bar, share in zip(bars, shares):
            ax.annotate(f"{100 * share:.1f}%", (bar.get_x() + bar.get_width() / 2, share), ha="center",
                        va="bottom", fontsize="small")
        ax.set_xticks(range(len(names)), names, rotation=20 if len(names) > 3 else 0, ha="right" if len(names) > 3 else "center")
        ax.set_ylim(0, 1.1)
        ax.set_ylabel("share of pairs that split")
    return _png(draw, width=max(4.0, 1.2 * len(datasets) + 2))


def render_pngs(datasets: Sequence[dict]) -> Dict[str, bytes]:
    """{file name: PNG bytes}: `<metric>.png` per histogram metric any dataset has, `splitting.png`."""
    out = {}
    for metric in HISTOGRAM_METRICS:
        if any(metric in d["metrics"] for d in datasets):
            out[f"{metric}.png"] = histogram_png(metric, datasets)
    out["splitting.png"] = split_share_png(datasets)
    return out


def _fmt(x) -> str:
    return "" if x is None else f"{x:.3f}"


def render_html(profile: dict, pngs: Dict[str, bytes]) -> str:
    """The page: inputs, the split-share table, a table of means and medians, the plots (embedded)."""
    datasets: List[dict] = profile["datasets"]
    e = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>Operation profile</title>",
             "<style>body{font-family:sans-serif;max-width:1000px;margin:auto}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:2px 8px;font-size:13px;text-align:right}"
             "td:first-child,th:first-child{text-align:left}</style></head><body>",
             "<h1>Operation profile of complex &rarr; simple pairs</h1>",
             "<p>The five operation metrics of the SimSim paper (&ldquo;Divide-and-Conquer Text Simplification by "
             "Scalable Data Enhancement&rdquo;, its Figure 1 and Table 2) for each dataset: alignment (BERTScore), "
             "substitution (simplifying PPDB 2.0 rules), dropping (share of complex tokens discarded), reordering "
             "(Jaccard similarity of dependency relations) and splitting (more sentences on the simple side).</p>"]
    note = (profile.get("substitution") or {}).get("note")
    if note:
        parts.append(f"<p><b>Substitution:</b> {e(note)}</p>")
    parts.append("<h2>Share of pairs that split (cf. the paper's Table 2)</h2>"
                 "<table><tr><th>dataset</th><th>pairs</th><th>split</th><th>share</th></tr>")
    for d in datasets:
        parts.append(f"<tr><td>{e(d['name'])}</td><td>{d['pairs']}</td><td>{d['metrics']['splitting']['splits']}</td>"
                     f"<td>{100 * d['split_share']:.1f}%</td></tr>")
    parts.append("</table>")
    metrics = [m for m in HISTOGRAM_METRICS if any(m in d["metrics"] for d in datasets)]
    parts.append("<h2>Mean (median) per metric</h2><table><tr><th>dataset</th>"
                 + "".join(f"<th>{e(m)}</th>" for m in metrics) + "</tr>")
    for d in datasets:
        cells = []
        for m in metrics:
            st = d["metrics"].get(m)
            cells.append(f"<td>{_fmt(st.get('mean'))} ({_fmt(st.get('median'))})</td>" if st and st.get("count")
                         else "<td>&ndash;</td>")
        parts.append(f"<tr><td>{e(d['name'])}</td>" + "".join(cells) + "</tr>")
    parts.append("</table>")
    parts.append("<h2>Distributions (cf. the paper's Figure 1)</h2>")
    for name in [f"{m}.png" for m in metrics] + ["splitting.png"]:
        if name in pngs:
            src = "data:image/png;base64," + base64.b64encode(pngs[name]).decode("ascii")
            parts.append(f"<h3>{e(name[:-4])}</h3><img src='{src}' alt='{e(name)}'>")
    parts.append("<h2>Inputs</h2><table><tr><th>dataset</th><th>input</th><th>format</th><th>pairs read</th>"
                 "<th>profiled</th><th>bad lines</th></tr>")
    for d in datasets:
        bad = ", ".join(f"{k}: {v}" for k, v in sorted(d.get("bad_lines", {}).items())) or "none"
        parts.append(f"<tr><td>{e(d['name'])}</td><td>{e(d['input'])}</td><td>{e(d['format'])}</td>"
                     f"<td>{d['pairs_read']}</td><td>{d['pairs']}</td><td>{e(bad)}</td></tr>")
    parts.append("</table></body></html>")
    return "\n".join(parts) + "\n"
