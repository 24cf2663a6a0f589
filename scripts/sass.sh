#!/usr/bin/env bash
# The SASS of gemmc's PTX, without a GPU: ptxas (CUDA 13, here), then
# nvdisasm. CUDA 13 here has no nvdisasm; Debian's non-free
# nvidia-cuda-toolkit (11.8, bookworm) has one, which reads CUDA 13's sm_90a
# cubins once their ELF header is given the old ABI's form (ABI version 7,
# the flags of sm_90 then). Tools only: nothing the build or the tests need.
#
#   scripts/sass.sh --setup            # fetch nvdisasm into ~/.cache/gemmc
#   scripts/sass.sh KERNEL.ptx         # SASS (sm_90a) to stdout
#   scripts/sass.sh --release-gap KERNEL.ptx...
#       per kernel, the most instructions between a consumer's wait for all
#       its wgmma (WARPGROUP.DEPBAR.LE gsb0, 0x0) and the next stage release
#       (SYNCS.ARRIVE...A1T0): ptxas had moved an epilogue's arithmetic in
#       between (benchmarks/results/h100-issue33/epilogue-release.txt)
set -euo pipefail
cache=${GEMMC_TOOLS_CACHE:-$HOME/.cache/gemmc}
nvdisasm=$cache/nvdisasm
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}

if [ "${1:-}" = --setup ]; then
  mkdir -p "$cache"
  list=$(mktemp)
  echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm non-free' \
    > "$list"
  work=$(mktemp -d)
  trap 'rm -rf "$work" "$list"' EXIT
  apt_options=(-o APT::Sandbox::User=root -o "Dir::Etc::sourcelist=$list" -o Dir::Etc::sourceparts=-
               -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache")
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
  apt-get "${apt_options[@]}" update > /dev/null
  (cd "$work" && apt-get "${apt_options[@]}" download nvidia-cuda-toolkit > /dev/null)
  dpkg -x "$work"/nvidia-cuda-toolkit_*.deb "$work/x"
  cp "$work/x/usr/bin/nvdisasm" "$nvdisasm"
  echo "sass.sh: $nvdisasm"
  exit 0
fi

[ -x "$nvdisasm" ] || { echo "sass.sh: no $nvdisasm (scripts/sass.sh --setup)" >&2; exit 1; }

disassemble() { # PTX
  local tmp
  tmp=$(mktemp -d)
  env -u CUDA_HOME "$ptxas" -arch=sm_90a "$1" -o "$tmp/a.cubin"
  python3 - "$tmp/a.cubin" <<'PY'
import struct, sys
path = sys.argv[1]
elf = bytearray(open(path, "rb").read())
elf[7] = 0x33                                  # EI_OSABI: CUDA
elf[8] = 7                                     # EI_ABIVERSION: the old ABI
struct.pack_into("<I", elf, 0x30, 0x5a055a)    # e_flags: sm_90, 64-bit addresses
open(path, "wb").write(elf)
PY
  "$nvdisasm" -c "$tmp/a.cubin"
  rm -rf "$tmp"
}

if [ "${1:-}" = --release-gap ]; then
  shift
  for ptx in "$@"; do
    disassemble "$ptx" | python3 -c '
import re, sys
kernel, gaps, since = None, {}, None
for line in sys.stdin:
    m = re.match(r"\s*\.text\.(\w+):", line)
    if m:
        kernel, since = m.group(1), None
        gaps[kernel] = 0
    elif kernel and re.search(r"/\*[0-9a-f]{4,}\*/", line):
        if "WARPGROUP.DEPBAR.LE gsb0, 0x0" in line:
            since = 0
        elif since is not None and re.search(r"SYNCS\.ARRIVE\.TRANS64(\.RED)?\.A1T0", line):
            gaps[kernel], since = max(gaps[kernel], since), None
        elif since is not None:
            since += 1
for kernel, gap in gaps.items():
    print(kernel, gap)'
  done
  exit 0
fi
disassemble "${1:?a PTX file}"
