"""The `# text =` lines of CoNLL-U files as JSON lines documents (`rewrite-mine ... --input X.jsonl`).

A document per `# newdoc`, its paragraphs per `# newpar` (blank-line separated); a file without
`# newdoc` marks (French-GSD: sentences of many sources in no reading order) gives one document per
sentence, so that no pair rule joins two unrelated sentences. The gold trees are not used: the job
parses the text again. A sentence without `# text` is counted and skipped.

    PYTHONPATH=. python tools/conllu_text_to_jsonl.py ../shared/data/ud/fr_gsd-ud-dev.conllu \\
        ../shared/data/ud/fr_gsd-ud-test.conllu --lang fr > fr_gsd.jsonl
"""
import argparse
import json
import sys


def documents(lines, name):
    """(id, text) per document of one CoNLL-U file, and the number of sentences without `# text`."""
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
    args = parser.parse_args(argv)
    for path in args.conllu:
        with open(path, encoding="utf-8") as f:
            docs, missing = documents(f.readlines(), path.rsplit("/", 1)[-1])
        for doc_id, text in docs:
            sys.stdout.write(json.dumps({"id": doc_id, "text": text, "lang": args.lang}, ensure_ascii=False) + "\n")
        print(f"{path}: {len(docs)} documents, {missing} sentences without '# text' skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
