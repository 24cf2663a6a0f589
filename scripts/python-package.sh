#!/usr/bin/env bash
# Stages the Python package with gemmc's runtime library and the families
# it ships inside it, ready for `pip install DIR` (or `pip wheel DIR`):
#   scripts/python-package.sh [BUILD_DIR] DIR
# DIR/gemmc/lib/libgemmc_runtime.so.0 and DIR/gemmc/share/gemmc/families
# (the runtime finds share/gemmc/families beside its lib/), so an installed
# gemmc needs neither the source tree nor $GEMMC_LIBRARY_DIR. The compiler
# (libgemmc_compiler.so and LLVM's libLLVM.so) is not bundled: compiling
# schedules from Python needs a `cmake --install` of gemmc, found through
# $GEMMC_LIBRARY_DIR or the system's loader.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -eq 2 ]; then build=$1; out=$2; else build=$root/build; out=$1; fi
lib="$build/lib/libgemmc_runtime.so.0"
families="$build/share/gemmc/families"
[ -f "$lib" ] || { echo "no $lib: build gemmc first" >&2; exit 1; }
[ -d "$families" ] || { echo "no $families: build gemmc first" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
cp -r "$root/python/pyproject.toml" "$root/python/README.md" \
  "$root/python/gemmc" "$out/"
rm -rf "$out/gemmc/__pycache__"
mkdir -p "$out/gemmc/lib" "$out/gemmc/share/gemmc"
cp -L "$lib" "$out/gemmc/lib/"  # the file, not the link (wheels hold none)
cp -r "$families" "$out/gemmc/share/gemmc/"
echo "$out: gemmc with $(basename "$lib") and $(find "$out/gemmc/share" -name '*.ptx' | wc -l) family files; pip install $out"
