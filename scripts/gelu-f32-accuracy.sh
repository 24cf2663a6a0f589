#!/usr/bin/env bash
# GELU's relative error where C is f32 (Lowering/Epilogue.cpp's exact path):
# 0.5 x erfc(-x / sqrt 2) against 0.5 x (1 + erf(x / sqrt 2)), both through
# MLIR's polynomial approximations (what gemm-approximate-math applies),
# run on the CPU with mlir-runner over x in [-13, 13) in steps of 0.01, each
# against libm's erfc in double.
# Results: benchmarks/results/h100-issue33/gelu-f32-tail.txt.
set -euo pipefail
bin=/usr/lib/llvm-22/bin lib=/usr/lib/llvm-22/lib
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/gelu.mlir" <<'EOF'
func.func private @printI64(i64)
func.func private @printNewline()
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 2600 : index
  %step = arith.constant 0.01 : f32
  %start = arith.constant -13.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %minus = arith.constant -0.70710678118654752 : f32
  %plus = arith.constant 0.70710678118654752 : f32
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %d = arith.mulf %fi, %step : f32
    %x = arith.addf %start, %d : f32
    %hx = arith.mulf %half, %x : f32
    %z = arith.mulf %x, %minus : f32
    %erfc = math.erfc %z : f32
    %g = arith.mulf %hx, %erfc : f32
    %w = arith.mulf %x, %plus : f32
    %erf = math.erf %w : f32
    %sum = arith.addf %one, %erf : f32
    %g1 = arith.mulf %hx, %sum : f32
    %xb = arith.bitcast %x : f32 to i32
    %gb = arith.bitcast %g : f32 to i32
    %g1b = arith.bitcast %g1 : f32 to i32
    %x64 = arith.extui %xb : i32 to i64
    %g64 = arith.extui %gb : i32 to i64
    %g164 = arith.extui %g1b : i32 to i64
    func.call @printI64(%x64) : (i64) -> ()
    func.call @printNewline() : () -> ()
    func.call @printI64(%g64) : (i64) -> ()
    func.call @printNewline() : () -> ()
    func.call @printI64(%g164) : (i64) -> ()
    func.call @printNewline() : () -> ()
  }
  return
}
EOF
"$bin/mlir-opt" "$dir/gelu.mlir" --test-math-polynomial-approximation \
  --convert-scf-to-cf --convert-math-to-llvm --convert-arith-to-llvm \
  --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts \
  -o "$dir/gelu.llvm.mlir"
"$bin/mlir-runner" "$dir/gelu.llvm.mlir" -e main -entry-point-result=void \
  -shared-libs="$lib/libmlir_runner_utils.so,$lib/libmlir_c_runner_utils.so" \
  > "$dir/out.txt"
python3 - "$dir/out.txt" <<'EOF'
import math, struct, sys
bits = [int(l) for l in open(sys.argv[1]) if l.strip()]
f32 = lambda b: struct.unpack('<f', struct.pack('<I', b))[0]
worst = {}
for i in range(0, len(bits), 3):
    x = f32(bits[i])
    ref = 0.5 * x * math.erfc(-x / math.sqrt(2))
    if abs(ref) < 1e-30:
        continue
    for name, value in (('erfc', f32(bits[i + 1])), ('1+erf', f32(bits[i + 2]))):
        for lo in (-13.0, -5.0):
            if x < lo:
                continue
            r = abs(value - ref) / abs(ref)
            key = (name, lo)
            if r > worst.get(key, (0, 0))[0]:
                worst[key] = (r, x)
for (name, lo), (r, x) in sorted(worst.items()):
    print(f'{name} form, x >= {lo:g}: relative error at most {r:.3g} (x = {x:.2f})')
EOF
