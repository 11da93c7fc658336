"""The language of a run: `--language xx`, or the language the Wikipedia dumps say they are in.

The Wikipedia jobs (discovery, discofuse, wikisplit) declare `--language` with
`add_language_argument`. Left empty, `resolve_language` reads the `<siteinfo>` header of each
Wikipedia input (`<dbname>frwiki</dbname>` is French; miners/sources/siteinfo.py) at the
driver, before the run is planned: the run's language is part of its options (its fingerprint,
the manifest). Inputs of several languages stop the run (one language per run: the segmenter and,
later, the filters and markers are chosen by it); inputs that say nothing (WET, JSON lines, sentence
pairs) leave English, what every job assumed before the option existed.

English runs write exactly what they wrote before: the segmenter, the cleaner and every file but
the manifest (which gains `language`) are unchanged. Any other language names the dataset
`<dataset>-<language>` (`markers-uk`: `Job.dataset_for`, schemas.records.dataset_name).
"""
import logging
import re
import typing

from pipelines.framework.errors import JobFailed

LOG = logging.getLogger("rewrite_mine")

DEFAULT_LANGUAGE = "en"
#: Wikimedia language codes: "fr", "yue", "zh-classical", "be-tarask", "simple" is read as "en".
_CODE = re.compile(r"^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$")
#: Input formats whose header names a language.
_WIKI_FORMATS = ("wiki", "wiki_multistream", "history")


def add_language_argument(parser) -> None:
    parser.add_argument("--language", default="",
                        help="language of the text (a Wikipedia language code: en, fr, uk, ja, ...): chooses the "
                             "sentence segmenter (miners/text/sentences.py), and names the dataset of any language but "
                             "en <dataset>-<language> (OUTPUT/markers-uk); empty: the language the Wikipedia dumps "
                             "name in their <siteinfo> (<dbname>frwiki</dbname> is fr), else en")


def _input_kind(path: str, fmt: str) -> str:
    from miners import sources  # pylint: disable=import-outside-toplevel
    name = path.rsplit("/", 1)[-1].lower()
    if "history" in name and fmt in ("auto", "", None, "history"):
        return "history"
    try:
        return sources.detect_format(path, fmt if fmt != "history" else "auto")
    except ValueError:
        return ""


def dump_language(path: str) -> str:
    """The language a Wikipedia dump's header names ("" when it names none or cannot be read)."""
    from miners.sources import siteinfo  # pylint: disable=import-outside-toplevel
    from transforms.read import open_input  # pylint: disable=import-outside-toplevel
    try:
        with open_input(path) as raw:
            return siteinfo.parse_siteinfo(siteinfo.read_header(raw, path)).lang
    except Exception:  # noqa: BLE001 - the reader reports an unreadable file properly
        return ""


def resolve_language(args, inputs: typing.Sequence[str]) -> str:
    """Sets and returns `args.language`: the option when given, else the inputs' one language.

    Raises:
      JobFailed: a malformed `--language`, or Wikipedia inputs of several languages without it.
    """
    given = (getattr(args, "language", "") or "").strip().lower()
    if given:
        if not _CODE.match(given):
            raise JobFailed(f"--language must be a language code like en, fr, zh-classical; got {given!r}")
        args.language = given
        return given
    fmt = getattr(args, "format", "auto")
    found: typing.Dict[str, str] = {}
    for path in inputs:
        if _input_kind(path, fmt) in _WIKI_FORMATS:
            lang = dump_language(path)
            if lang:
                found.setdefault(lang, path)
    if len(found) > 1:
        raise JobFailed("the inputs are Wikipedia dumps of several languages ("
                        + ", ".join(f"{k}: {v}" for k, v in sorted(found.items()))
                        + "); run one language at a time, or pass --language to treat them all as one")
    lang = next(iter(found), DEFAULT_LANGUAGE)
    if found:
        LOG.info("language %s, from the dump header of %s", lang, found[lang])
    args.language = lang
    return lang


def dump_namespaces(paths: typing.Sequence[str]) -> typing.Optional[typing.FrozenSet[str]]:
    """The link prefixes the cleaner drops for these dumps (`miners.sources.siteinfo.hidden_link_prefixes`
    of every header, united); None when no header names its namespaces (the cleaner's built-in list)."""
    from miners.sources import siteinfo  # pylint: disable=import-outside-toplevel
    from miners.text.wikitext import HIDDEN_NAMESPACES  # pylint: disable=import-outside-toplevel
    from transforms.read import open_input  # pylint: disable=import-outside-toplevel
    hidden = set()
    for path in paths:
        try:
            with open_input(path) as raw:
                site = siteinfo.parse_siteinfo(siteinfo.read_header(raw, path))
        except Exception:  # noqa: BLE001 - the reader reports an unreadable file properly
            continue
        if site.namespaces:
            hidden |= siteinfo.hidden_link_prefixes(site, HIDDEN_NAMESPACES)
    return frozenset(hidden) if hidden else None


def check_language_filter(language: str, enabled: bool = True) -> None:
    """Stops a run whose language lid.176 cannot recognise while its language filter is on.

    Raises:
      JobFailed: naming the option that turns the filter off.
    """
    from miners.nlp.langid import known_language  # pylint: disable=import-outside-toplevel
    if enabled and not known_language(language):
        raise JobFailed(f"the language filter (fastText lid.176) does not know the language {language!r}: "
                        "run without it (discovery: --min_language_prob 0 --min_document_english_prob 0; "
                        "discofuse: --no_lang_filter)")
