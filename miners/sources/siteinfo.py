"""The `<siteinfo>` header of a MediaWiki dump: the wiki's language and its namespaces (no Beam import).

Every pages-articles and pages-meta-history dump opens with

    <mediawiki ... xml:lang="uk">
      <siteinfo>
        <dbname>ukwiki</dbname>
        <base>https://uk.wikipedia.org/wiki/...</base>
        <namespaces>
          <namespace key="-2" case="first-letter">Медіа</namespace>
          <namespace key="6" case="first-letter">Файл</namespace>
          <namespace key="14" case="first-letter">Категорія</namespace>
          ...

The language of the run defaults to the dump's (`dbname` `ukwiki` -> `uk`; else the host of
`<base>`; else `xml:lang`), and the links the cleaner drops (files, media, categories) are those
of the dump's own namespace names (`hidden_link_prefixes`). The header names only the local
name of each namespace: the English canonical names (File, Image, Media, Category), which every
wiki accepts, and the local aliases that `NAMESPACE_ALIASES` lists are added to it.
"""
import re
import typing
import urllib.parse
import xml.etree.ElementTree as ET

from miners.sources.common import decompressed

#: Namespace keys whose links are not visible text: Media (-2), File (6), Category (14).
HIDDEN_NAMESPACE_KEYS = (-2, 6, 14)

#: MediaWiki's canonical (English) names of those namespaces, valid on every wiki; `Image` is
#: the File namespace's old name, still an alias everywhere.
CANONICAL_HIDDEN = ("Media", "File", "Image", "Category")

#: Local aliases of the File and Category namespaces that a dump's header does not name (it
#: gives one local name per namespace). Each was seen as a link prefix in the real excerpts of
#: ../shared/data/wikipedia/multilingual/ (counts of `[[Alias:` in articles: vi Hình 127,
#: ja 画像 35, el Εικόνα 29, zh 分類 2) or is the alias MediaWiki's language files give for
#: the language (uk Зображення, ru Изображение, zh's script variants).
NAMESPACE_ALIASES = {
    "el": ("Εικόνα",),
    "ja": ("画像",),
    "ru": ("Изображение",),
    "uk": ("Зображення",),
    "vi": ("Hình", "Hình ảnh"),
    "zh": ("文件", "檔案", "档案", "图像", "圖像", "分类", "分類"),
}

_DBNAME = re.compile(r"<dbname>\s*([a-z][a-z0-9_]*?)wiki\s*</dbname>")
_BASE = re.compile(r"<base>\s*([^<\s]+)\s*</base>")
_XML_LANG = re.compile(r"""xml:lang=["']([A-Za-z-]+)["']""")
_NAMESPACES = re.compile(r"<namespaces>.*?</namespaces>", re.DOTALL)
_SITEINFO_END = b"</siteinfo>"
#: Bytes of a dump read at most to find its header (the largest headers are a few kB).
MAX_HEADER_BYTES = 1 << 20


class SiteInfo(typing.NamedTuple):
    """What the header says: `lang` ("" when it does not say) and `namespaces` {key: local name}."""
    lang: str = ""
    namespaces: typing.Dict[int, str] = {}


def _lang_of_dbname(dbname: str) -> str:
    # Wikimedia database names: "enwiki", "zh_yuewiki" (yue), "be_x_oldwiki" (be-tarask), "simplewiki".
    return {"simple": "en", "zh_yue": "yue", "zh_classical": "lzh", "zh_min_nan": "nan",
            "be_x_old": "be-tarask"}.get(dbname, dbname.replace("_", "-"))


def parse_siteinfo(header: typing.Union[bytes, str]) -> SiteInfo:
    """The language and namespaces of a dump header (the bytes before its first `<page>`)."""
    text = header.decode("utf-8", "replace") if isinstance(header, bytes) else header
    lang = ""
    m = _DBNAME.search(text)
    if m and m.group(1) not in ("commons", "meta", "species", "wikidata", "mediawiki"):
        lang = _lang_of_dbname(m.group(1))
    if not lang:
        m = _BASE.search(text)
        host = (urllib.parse.urlsplit(m.group(1)).hostname or "") if m else ""
        if host.endswith(".wikipedia.org"):
            lang = host.split(".")[0]
    if not lang:
        m = _XML_LANG.search(text)
        lang = m.group(1).lower() if m else ""
    namespaces = {}
    m = _NAMESPACES.search(text)
    if m:
        try:
            root = ET.fromstring(re.sub(r"\sxmlns(:\w+)?=\"[^\"]*\"", "", m.group(0)))
        except ET.ParseError:
            root = None
        for ns in (root if root is not None else ()):
            try:
                key = int(ns.get("key", ""))
            except ValueError:
                continue
            namespaces[key] = (ns.text or "").strip()
    return SiteInfo(lang=lang, namespaces=namespaces)


def _normal(name: str) -> str:
    """A namespace name as `miners.text.wikitext` compares link prefixes: lower case, `_` as a space."""
    return " ".join(name.replace("_", " ").split()).lower()


def hidden_link_prefixes(site: SiteInfo, base: typing.Iterable[str] = ()) -> typing.FrozenSet[str]:
    """Link prefixes (normalised) whose links the cleaner drops: `base` (the cleaner's built-in list),
    the canonical names, the header's local names of Media / File / Category and the aliases of
    the site's language."""
    names = set(base)
    names.update(_normal(n) for n in CANONICAL_HIDDEN)
    names.update(_normal(site.namespaces[k]) for k in HIDDEN_NAMESPACE_KEYS if site.namespaces.get(k))
    names.update(_normal(n) for n in NAMESPACE_ALIASES.get(site.lang.split("-")[0], ()))
    return frozenset(names)


def read_header(raw: typing.BinaryIO, path: str, limit: int = MAX_HEADER_BYTES) -> bytes:
    """The decompressed bytes of a dump up to its `</siteinfo>` (at most `limit` bytes; UTF-16 dumps
    transcoded to UTF-8)."""
    import codecs  # pylint: disable=import-outside-toplevel
    if path.lower().endswith(".7z"):  # pages-meta-history dumps come as 7z too
        from miners.sources.history import open_dump  # pylint: disable=import-outside-toplevel
        f = open_dump(raw, path)
    else:
        f = decompressed(raw, path)
    buf = b""
    while len(buf) < limit:
        block = f.read(1 << 16)
        if not block:
            break
        buf += block
        if buf[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            end = buf.find(_SITEINFO_END.decode().encode("utf-16-le" if buf[:2] == codecs.BOM_UTF16_LE
                                                          else "utf-16-be"))
            if end >= 0:
                return buf[:end].decode("utf-16", "replace").encode("utf-8")
            continue
        end = buf.find(_SITEINFO_END)
        if end >= 0:
            return buf[:end]
        if b"<page>" in buf:  # no siteinfo at all
            return buf[:buf.find(b"<page>")]
    if buf[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return buf.decode("utf-16", "replace").encode("utf-8")
    return buf
