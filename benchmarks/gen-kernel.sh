# Sourced by the compile step of the benchmark scripts (wgmma-copies.sh,
# wgmma-tf32x3.sh, splits-at-launch.sh) with $dir set: sets $gemmc (GEMMC
# overrides), makes $dir/k and $dir/bin and copies the calling script into
# $dir. Then `gen NAME M N K TYPE LAYOUT "DIRECTIVES; ..."
# ["STATEMENTS; ..."]` writes $dir/k/NAME.gemm, A, B and C of TYPE in LAYOUT
# (r or c each, e.g. rrc) with the problem's further statements, and
# compiles it with $gemmc for sm_90a.
gen() {
  local la=row lb=row lc=row
  [ "${6:0:1}" = c ] && la=col; [ "${6:1:1}" = c ] && lb=col
  [ "${6:2:1}" = c ] && lc=col
  { echo "kernel $1 {"; echo "  problem {"
    printf '    m = %s\n    n = %s\n    k = %s\n' "$2" "$3" "$4"
    printf '    a = %s %s\n    b = %s %s\n    c = %s %s\n' "$5" $la "$5" $lb "$5" $lc
    [ -n "${8:-}" ] && printf '%s\n' "$8" | tr ';' '\n' | sed 's/^ */    /'
    echo "  }"; echo "  schedule {"
    printf '%s\n' "$7" | tr ';' '\n' | sed 's/^ */    /'
    echo "  }"; echo "}"; } > "$dir/k/$1.gemm"
  "$gemmc" --arch=sm_90a "$dir/k/$1.gemm" -o "$dir/k/$1.ptx" ||
    { echo "gemmc failed on $1" >&2; exit 1; }
}

gemmc=${GEMMC:-$(dirname "$0")/../build/bin/gemmc}
mkdir -p "$dir/k" "$dir/bin"
cp "$0" "$dir/"
