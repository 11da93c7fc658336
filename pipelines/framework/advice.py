"""Help when a run comes out empty or strange: which stage and option dropped (nearly) everything.

After a run the summary's counts are inspected stage by stage: a stage whose
drops (`<stage>/filtered:<reason>`) are at least `DROP_SHARE` of what it saw
(`passed` + drops) is named, with the reason that dropped the most. A `Rule`
for that counter (a job's own, or any job's) says what it means and which
option to change; without one a generic line points at the job's options.

Jobs extend the table with `register(Rule(...))` next to their options, e.g.

    register(Rule("select/filtered:rare_marker", option="min_marker_count", job="discovery",
                  message="every marker has fewer than {value:,} candidates; for small inputs use "
                          "--preset sample or lower --min_marker_count"))

`message` is formatted with `value` (the option's value in this run),
`dropped`, `total`, `stage`, `reason`, `job` and every run option by name.
"""
import dataclasses
import fnmatch
import typing

DROP_SHARE = 0.99  # "nearly everything"


@dataclasses.dataclass(frozen=True)
class Rule:
    """`counter` (fnmatch pattern over `<stage>/filtered:<reason>`) -> what it means and what to try."""
    counter: str
    message: str
    option: str = ""
    job: str = ""  # "" = any job


RULES: typing.List[Rule] = []


def register(rule: Rule) -> Rule:
    RULES.append(rule)
    return rule


# Discovery (DiscoFuse-style marker mining; pipelines/discovery.py and its presets).
register(Rule("select/filtered:rare_marker", option="min_marker_count", job="discovery",
              message="every marker has fewer than {value:,} candidates; for small inputs use --preset sample "
                      "or lower --min_marker_count"))
register(Rule("select/filtered:over_cap", option="max_per_marker", job="discovery",
              message="the per-marker cap kept almost nothing; raise --max_per_marker"))
register(Rule("*/filtered:not_english", option="min_english_prob",
              message="almost nothing was recognised as English with probability >= {value}; check the input "
                      "language, or lower --min_english_prob"))
register(Rule("*/filtered:wrong_language", option="language",
              message="almost nothing was recognised as the run's language ({value}); check --language against the "
                      "input, or lower --min_language_prob"))
register(Rule("*/filtered:too_long", option="max_words",
              message="almost every sentence is longer than --max_words {value}; raise --max_words"))
register(Rule("*/filtered:too_short", option="min_words",
              message="almost every sentence is shorter than --min_words {value}; lower --min_words"))
register(Rule("*/filtered:no_marker",
              message="almost no sentence pair holds a discourse marker: is the input prose (Wikipedia article "
                      "text, web text) in English?"))
register(Rule("read/filtered:*", option="format",
              message="the reader rejected almost every record; check --format ({value}) against the input files"))
register(Rule("*/filtered:reader_error", option="format",
              message="the inputs could not be read; check --format ({value}) and the files (see rejects/)"))


def _rule_for(job: str, counter: str) -> typing.Optional[Rule]:
    for rule in RULES:  # a job's own rule before one for any job
        if rule.job == job and fnmatch.fnmatchcase(counter, rule.counter):
            return rule
    for rule in RULES:
        if not rule.job and fnmatch.fnmatchcase(counter, rule.counter):
            return rule
    return None


def _int(v) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _total(node) -> int:
    """A counter's value, or the sum of a counter family's values ({"es": 3, "ca": 4} -> 7)."""
    if isinstance(node, dict):
        return sum(_total(v) for v in node.values())
    return _int(node)


def advise(manifest: dict) -> typing.List[str]:
    """Lines explaining the stages that dropped at least DROP_SHARE of their input (or why nothing was written)."""
    job = manifest.get("job", "")
    options = manifest.get("options", {})
    stages = manifest.get("counts", {}).get("stages", {})
    lines = []
    for stage, bucket in sorted(stages.items()):
        filtered = {r: _int(n) for r, n in bucket.get("filtered", {}).items()} if isinstance(
            bucket.get("filtered"), dict) else {}
        dropped = sum(filtered.values())
        if not dropped:
            continue
        if isinstance(bucket.get("passed"), (int, dict)):  # a total, or a total per kind (per method, split)
            kept = _total(bucket["passed"])
        elif any(_int(v) for k, v in bucket.items() if k not in ("filtered", "skipped")):
            continue  # the stage counts what it keeps under another name (e.g. read/documents): no share
        else:
            kept = 0
        total = kept + dropped
        if dropped < DROP_SHARE * total:
            continue
        reason, n = max(sorted(filtered.items()), key=lambda kv: kv[1])
        counter = f"{stage}/filtered:{reason}"
        rule = _rule_for(job, counter)
        head = f"{counter} dropped {n:,} of {total:,} ({100.0 * n / total:.0f}%)"
        if rule is None:
            lines.append(f"{head}: see the {stage} options in `rewrite-mine {job} --help`")
            continue
        value = options.get(rule.option, "") if rule.option else ""
        fields = dict(options, value=value, dropped=n, total=total, stage=stage, reason=reason, job=job)
        try:
            text = rule.message.format(**fields)
        except (KeyError, ValueError, IndexError):
            text = rule.message
        lines.append(f"{head}: {text}")
    written = sum(_int(node.get("examples")) for splits in manifest.get("counts", {}).get("written", {}).values()
                  for node in splits.values())
    if not written and not manifest.get("_up_to_date"):
        read = stages.get("read")
        if read is not None and not any(_int(read.get(k)) for k in ("documents", "records", "passed")):
            lines.append("no document was read from the inputs: check --input and --format "
                         f"({options.get('format', 'auto')})")
        elif not lines:
            lines.append(f"no stage dropped {100 * DROP_SHARE:.0f}% of its input, but nothing was written: "
                         f"see the per-stage counts above and rejects/")
        lines.insert(0, "0 examples written.")
    return lines


def print_advice(manifest: dict, stream) -> None:
    lines = advise(manifest)
    if not lines:
        return
    stream.write("what happened:\n" if lines[0].startswith("0 examples") else "stages that dropped nearly everything:\n")
    for line in lines:
        stream.write(f"  {line}\n")
