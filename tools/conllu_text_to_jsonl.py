"""The `# text =` lines of CoNLL-U files as JSON lines documents (`rewrite-mine ... --input X.jsonl`).

A document per `# newdoc`, its paragraphs per `# newpar` (blank-line separated); a file without
`# newdoc` marks (French-GSD: sentences of many sources in no reading order) gives one document per
sentence, so that no pair rule joins two unrelated sentences. The gold trees are not used: the job
parses the text again. A sentence without `# text` is counted and skipped.

`--group_by_sent_id` (for a file without `# newdoc` whose sent_ids number the sentences of each text,
as Sequoia's `Europar.550_00001`, `annodis.er_00001`): one document per sent_id prefix (the part
before the last `_`, documents in the order their prefix first appears), its sentences in the order of
the number after the `_`, a new paragraph wherever the numbering jumps (a number missing). A sent_id
without a numeric suffix is a document of its own. `# newdoc` / `# newpar` marks are then ignored.

    PYTHONPATH=. python tools/conllu_text_to_jsonl.py ../shared/data/ud/fr_gsd-ud-dev.conllu \\
        ../shared/data/ud/fr_gsd-ud-test.conllu --lang fr > fr_gsd.jsonl
    PYTHONPATH=. python tools/conllu_text_to_jsonl.py ../shared/data/ud/fr_sequoia-annodis-europarl.conllu \
        --lang fr --group_by_sent_id > fr_sequoia_docs.jsonl
"""
import argparse
import json
import sys


def sentences(lines):
    """(sent_id or None, text or None) per sentence of one CoNLL-U file, in file order."""
    out, text, sent_id, in_sentence = [], None, None, False
    for line in lines + [""]:
        line = line.rstrip("\n")
        if line.startswith("# sent_id"):
            sent_id = line.split("=", 1)[1].strip()
        elif line.startswith("# text ="):
            text = line.split("=", 1)[1].strip()
        elif line.strip() and not line.startswith("#"):
            in_sentence = True
        elif not line.strip() and in_sentence:
            in_sentence = False
            out.append((sent_id, text))
            text, sent_id = None, None
    return out


def documents_by_sent_id(lines, name):
    """(id, text) per sent_id prefix, sentences in id order, a paragraph break where the number jumps;
    and the number of sentences without `# text`."""
    groups, missing, singles = {}, 0, 0
    for i, (sent_id, text) in enumerate(sentences(lines)):
        if text is None:
            missing += 1
            continue
        prefix, _, number = (sent_id or "").rpartition("_")
        if not prefix or not number.isdigit():
            singles += 1
            groups[sent_id or f"{name}#s{singles}"] = [(0, i, text)]
        else:
            groups.setdefault(prefix, []).append((int(number), i, text))
    docs = []
    for prefix, sents in groups.items():
        paragraphs, last = [], None
        for number, _, text in sorted(sents):
            if last is None or number != last + 1:
                paragraphs.append([])
            paragraphs[-1].append(text)
            last = number
        docs.append((prefix, "\n\n".join(" ".join(p) for p in paragraphs)))
    return docs, missing


def documents(lines, name, group_by_sent_id=False):
    """(id, text) per document of one CoNLL-U file, and the number of sentences without `# text`."""
    if group_by_sent_id:
        return documents_by_sent_id(lines, name)
    docs, missing = [], 0
    has_newdoc = any(line.startswith("# newdoc") for line in lines)
    doc_id, paragraphs, text, sent_id, in_sentence = None, [], None, None, False

    def flush_doc():
        if paragraphs and any(paragraphs):
            docs.append((doc_id, "\n\n".join(" ".join(p) for p in paragraphs if p)))

    for line in lines + [""]:
        line = line.rstrip("\n")
        if line.startswith("# newdoc"):
            flush_doc()
            doc_id = line.split("=", 1)[1].strip() if "=" in line else f"{name}#{len(docs)}"
            paragraphs = [[]]
        elif line.startswith("# newpar") and has_newdoc:
            paragraphs.append([])
        elif line.startswith("# sent_id"):
            sent_id = line.split("=", 1)[1].strip()
        elif line.startswith("# text ="):
            text = line.split("=", 1)[1].strip()
        elif line.strip() and not line.startswith("#"):
            in_sentence = True
        elif not line.strip() and in_sentence:
            in_sentence = False
            if text is None:
                missing += 1
            elif has_newdoc:
                paragraphs[-1].append(text)
            else:
                docs.append((sent_id or f"{name}#{len(docs)}", text))
            text, sent_id = None, None
    if has_newdoc:
        flush_doc()
    return docs, missing


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("conllu", nargs="+")
    parser.add_argument("--lang", default="")
    parser.add_argument("--group_by_sent_id", action="store_true",
                        help="one document per sent_id prefix (before the last '_'), sentences in id "
                             "order, a new paragraph where the numbering jumps")
    args = parser.parse_args(argv)
    for path in args.conllu:
        with open(path, encoding="utf-8") as f:
            docs, missing = documents(f.readlines(), path.rsplit("/", 1)[-1], args.group_by_sent_id)
        for doc_id, text in docs:
            sys.stdout.write(json.dumps({"id": doc_id, "text": text, "lang": args.lang}, ensure_ascii=False) + "\n")
        print(f"{path}: {len(docs)} documents, {missing} sentences without '# text' skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
