"""Test helpers that BUILD tiny models at test time (nothing is downloaded) and read real sentences.

  * `tiny_ct2_pair(root, pivot)`: a randomly initialised Marian model with its own
    SentencePiece tokenizers, saved with `transformers` and converted with
    CTranslate2's converter (int8) into `root/en-<pivot>` and `root/<pivot>-en`,
    the layout `--translator ctranslate2 --ct2_model_dir root` reads. Its output
    is noise: tests assert the plumbing, not the quality.
  * `tiny_gpt2(path)`: a randomly initialised GPT-2 with a byte-level tokenizer
    (every byte one token, no merges), saved like a downloaded GPT-2.
  * `write_arpa(path)`: a small hand-written bigram ARPA file whose values tests
    can recompute by hand.
  * `wikipedia_sentences(n)`: real English sentences from the bundled enwiki
    sample (samples/wikipedia), cleaned and split by the project's own code.
"""
import json
import os
import random
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENWIKI = os.path.join(ROOT, "samples", "wikipedia",
                      "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")

_CORPUS = [
    "the cat sat on the mat", "a dog ran in the park", "el gato se sentó en la alfombra",
    "un perro corrió en el parque", "the weather is nice today", "hace buen tiempo hoy",
    "she reads a book every night", "ella lee un libro cada noche", "we went to the market",
    "fuimos al mercado", "the river flows to the sea", "el río fluye hacia el mar",
]


def wikipedia_sentences(n: int, min_words: int = 8, max_words: int = 40, seed: int = 0):
    """`n` real sentences (8 to 40 words, at least one lower-case word each) from the enwiki sample, in a
    seeded order."""
    from miners import sources
    from miners.text import segmenter as text
    found = []
    for doc in sources.iter_wiki_articles(ENWIKI, ENWIKI, "test"):
        if not hasattr(doc, "text"):
            continue
        for para in text.split_paragraphs(doc.text):
            for sentence in text.split_sentences(para):
                if min_words <= len(sentence.split()) <= max_words and sentence[-1:] in ".!?":
                    found.append(sentence)
        if len(found) >= 20 * n:
            break
    random.Random(seed).shuffle(found)
    return found[:n]


def _spm(path_prefix: str, lines):
    import sentencepiece
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_prefix=path_prefix, vocab_size=60, model_type="unigram",
        character_coverage=1.0, hard_vocab_limit=False, bos_id=-1, eos_id=-1, unk_id=0,
        minloglevel=2, num_threads=1)
    return path_prefix + ".model"


def tiny_marian(path: str, seed: int = 0) -> str:
    """A random Marian model + MarianTokenizer (source.spm, target.spm, vocab.json) saved in `path`."""
    import sentencepiece
    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer
    os.makedirs(path, exist_ok=True)
    spm = _spm(os.path.join(path, "sp"), _CORPUS)
    shutil.copy(spm, os.path.join(path, "source.spm"))
    shutil.copy(spm, os.path.join(path, "target.spm"))
    sp = sentencepiece.SentencePieceProcessor(model_file=spm)
    vocab = {"</s>": 0, "<unk>": 1}
    for i in range(sp.get_piece_size()):
        vocab.setdefault(sp.id_to_piece(i), len(vocab))
    vocab["<pad>"] = len(vocab)
    with open(os.path.join(path, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    tokenizer = MarianTokenizer(os.path.join(path, "source.spm"), os.path.join(path, "target.spm"),
                                os.path.join(path, "vocab.json"), source_lang="en", target_lang="xx")
    tokenizer.save_pretrained(path)
    config = MarianConfig(vocab_size=len(vocab), d_model=16, encoder_layers=1, decoder_layers=1,
                          encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
                          decoder_ffn_dim=32, max_position_embeddings=512, pad_token_id=vocab["<pad>"],
                          eos_token_id=vocab["</s>"], decoder_start_token_id=vocab["<pad>"],
                          forced_eos_token_id=vocab["</s>"], max_length=24, init_std=0.5)
    torch.manual_seed(seed)
    MarianMTModel(config).save_pretrained(path)
    return path


def tiny_ct2_pair(root: str, pivot: str = "xx") -> str:
    """`root/en-<pivot>` and `root/<pivot>-en`: tiny random Marian models converted to CTranslate2 int8,
    each with the source.spm / target.spm that OPUS-MT ships. Returns `root`."""
    from ctranslate2.converters import TransformersConverter
    for i, name in enumerate((f"en-{pivot}", f"{pivot}-en")):
        hf_dir = tiny_marian(os.path.join(root, "_hf", name), seed=i)
        out = os.path.join(root, name)
        TransformersConverter(hf_dir, copy_files=["source.spm", "target.spm"]).convert(
            out, quantization="int8", force=True)
    return root


def _byte_chars():
    """GPT-2's byte-level alphabet: printable bytes stand for themselves, the others move to 256 and up."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return [chars[b] for b in range(256)]


def tiny_gpt2(path: str, seed: int = 0) -> str:
    """A random 2-layer GPT-2 and a byte-level GPT-2 tokenizer (256 byte tokens, no merges) in `path`."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2Tokenizer
    os.makedirs(path, exist_ok=True)
    vocab = {ch: i for i, ch in enumerate(_byte_chars())}
    vocab["<|endoftext|>"] = len(vocab)
    tokenizer = GPT2Tokenizer(vocab=vocab, merges=[])
    tokenizer.save_pretrained(path)
    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=len(vocab), n_positions=512, n_embd=32, n_layer=2, n_head=2,
                        bos_token_id=vocab["<|endoftext|>"], eos_token_id=vocab["<|endoftext|>"])
    GPT2LMHeadModel(config).save_pretrained(path)
    return path


# A bigram model over four words. log10 values; a backoff weight of 0 (log10 1) where omitted.
ARPA = """\\data\\
ngram 1=7
ngram 2=5

\\1-grams:
-1.0\t<unk>\t0
-99\t<s>\t-0.30103
-0.69897\t</s>\t0
-0.52288\tthe\t-0.2
-1.0\tcat\t-0.1
-1.0\tsat\t0
-1.30103\tdog\t0

\\2-grams:
-0.30103\t<s> the
-0.22185\tthe cat
-0.39794\tcat sat
-0.15490\tsat </s>
-0.5\tthe dog

\\end\\
"""


def write_arpa(path: str) -> str:
    with open(path, "w", encoding="utf-8") as f:
        f.write(ARPA)
    return path
