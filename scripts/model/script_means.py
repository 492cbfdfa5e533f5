"""Per-script mean sentence vectors of the student (language-mean removal; see README.md).

A static model's sentence vectors share a large per-language component, so a text is always
closer to unrelated text in its own language than to its translation. The loader takes each
script's mean off (`model.bin` flag bit3 section). The means are the student's average unit
sentence vector over a reference corpus per language: the user-interface strings (service and
option descriptions, messages) of Home Assistant's integrations in English, Simplified and
Traditional Chinese, Japanese and Korean, from the PyPI wheel `homeassistant` (Apache-2.0),
pinned below by version and sha256. Only these five mean vectors reach the model file.
"""
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile

import numpy as np

HA_VERSION = "2025.4.4"
HA_WHEEL = f"homeassistant-{HA_VERSION}-py3-none-any.whl"
HA_SHA256 = "b7970fe3ce3a9d032a3a5dee3cbf71b227e7f23fad14a23855ee252542ef2631"
# model file name of each mean -> Home Assistant's translation file language
SCRIPTS = (("latin", "en"), ("zh-Hans", "zh-Hans"), ("zh-Hant", "zh-Hant"), ("ja", "ja"), ("ko", "ko"))


def wheel(cache):
    """The pinned wheel, downloaded once into `cache` (pip download: no install, no deps)."""
    path = os.path.join(cache, HA_WHEEL)
    if not os.path.exists(path):
        os.makedirs(cache, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                        "--python-version", "3.13", f"homeassistant=={HA_VERSION}", "-d", cache], check=True)
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if digest != HA_SHA256:
        raise SystemExit(f"{path}: sha256 {digest}, expected {HA_SHA256}")
    return path


def _strings(value, out):
    if isinstance(value, dict):
        for key in sorted(value):
            _strings(value[key], out)
    elif isinstance(value, str):
        out.append(value)


def _clean(text):
    """Plain text of one translation string, or None: references to other strings, links,
    URLs, {placeholders}, markup and whitespace runs go; 2-300 characters are kept."""
    if "[%key:" in text:
        return None
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"https?://\S+", " ", text)
    text = re.sub(r"\{[^{}]*\}", " ", text)
    text = re.sub(r"<[^>]*>", " ", text)
    text = re.sub(r"[`*_#]+", " ", text)
    text = re.sub(r"\s+", " ", text).strip(" :：,，.。-")
    return text if 2 <= len(text) <= 300 else None


def corpus(wheel_path, lang):
    """Distinct cleaned strings of every integration's `translations/<lang>.json`, in file
    and key order (deterministic)."""
    seen, texts = set(), []
    with zipfile.ZipFile(wheel_path) as z:
        names = sorted(n for n in z.namelist() if re.fullmatch(rf"homeassistant/components/[^/]+/translations/{re.escape(lang)}\.json", n))
        for name in names:
            strings = []
            _strings(json.loads(z.read(name)), strings)
            for s in strings:
                c = _clean(s)
                if c and c not in seen:
                    seen.add(c)
                    texts.append(c)
    return texts


def script_means(student, cache, log=print):
    """[(model name, mean unit sentence vector)], and the corpus sizes for model.json."""
    path = wheel(cache)
    means, sizes = [], {}
    for name, lang in SCRIPTS:
        texts = corpus(path, lang)
        vecs = student.embed(texts, latin=name == "latin")
        vecs = vecs[np.linalg.norm(vecs, axis=1) > 0]
        means.append((name, vecs.mean(axis=0).astype(np.float32)))
        sizes[name] = len(vecs)
        log(f"  script mean {name}: {len(vecs)} texts, norm {np.linalg.norm(means[-1][1]):.3f}")
    return means, sizes
