"""Unigram Viterbi segmentation, as specified for the static model (model-format: split on
whitespace, prefix each word with U+2581, best-scoring segmentation, unknown char -> unk)."""
import unicodedata

import numpy as np

META = "\u2581"


class Unigram:
    def __init__(self, pieces, scores, unk_id, lowercase=True, nfkc=True, skip_ids=()):
        self.lookup = {}
        skip = set(skip_ids)
        for i, p in enumerate(pieces):
            if i != unk_id and i not in skip and p and p not in self.lookup:
                self.lookup[p] = i
        self.scores = np.asarray(scores, dtype=np.float64)
        self.unk_id = unk_id
        self.unk_score = float(min(scores)) - 10.0
        self.max_len = max(len(p) for p in self.lookup)
        self.lowercase = lowercase
        self.nfkc = nfkc

    def normalize(self, text):
        if self.nfkc:
            text = unicodedata.normalize("NFKC", text)
        if self.lowercase:
            text = text.lower()
        return text

    def segment(self, word):
        n = len(word)
        best = [-1e300] * (n + 1)
        back = [None] * (n + 1)
        best[0] = 0.0
        lookup, scores = self.lookup, self.scores
        for i in range(n):
            if best[i] <= -1e299:
                continue
            for e in range(i + 1, min(n, i + self.max_len) + 1):
                idx = lookup.get(word[i:e])
                if idx is not None:
                    s = best[i] + scores[idx]
                    if s > best[e]:
                        best[e] = s
                        back[e] = (i, idx)
            s = best[i] + self.unk_score
            if s > best[i + 1]:
                best[i + 1] = s
                back[i + 1] = (i, self.unk_id)
        out = []
        e = n
        while e > 0:
            i, idx = back[e]
            out.append(idx)
            e = i
        return out[::-1]

    def encode(self, text):
        ids = []
        for word in self.normalize(text).split():
            ids.extend(self.segment(META + word))
        return ids
