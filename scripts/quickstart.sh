#!/usr/bin/env bash
# README command 1: set up, build, and compile a shipped example schedule to
# PTX; print where the PTX went and, where ptxas exists, its resources.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GEMMC_BUILD_DIR:-build}
example=${1:-examples/coalesced.gemm}

bash scripts/setup.sh
bash scripts/build.sh

out="$build/$(basename "$example" .gemm).ptx"
"$build/bin/gemmc" "$example" -o "$out"
echo "gemmc: wrote $out"

ptxas=$(command -v ptxas || true)
[ -n "$ptxas" ] || [ ! -x /usr/local/cuda/bin/ptxas ] || ptxas=/usr/local/cuda/bin/ptxas
if [ -n "$ptxas" ]; then
  arch=$(sed -n 's|^// arch: ||p' "$out")
  "$ptxas" -arch="$arch" -v "$out" -o "${out%.ptx}.cubin" 2>&1 |
    sed -n 's/^ptxas info *: //p; s/^ *\([0-9]* bytes stack.*\)/\1/p'
else
  echo "ptxas not found: no resource summary"
fi
