#!/usr/bin/env bash
# Redraws the plots of docs/benchmarks.md (benchmarks/plots/) from the results in
# benchmarks/results/ (needs matplotlib).
set -euo pipefail
cd "$(dirname "$0")/.."
plot=runtime/scripts/plot-shapes.py
# Debian's python3-matplotlib where the first python3 on PATH lacks it.
py=python3; python3 -c "import matplotlib" 2>/dev/null || py=/usr/bin/python3
r=benchmarks/results/h100-issue30
out=benchmarks/plots
mkdir -p "$out"
$py $plot --title "Held-out workload problems (never tuned or fitted on), H200, GPU time alone" \
  --ylim 0.1,4 "$out/issue30-heldout.png" \
  f16=$r/autotune/f16-model.csv bf16=$r/heldout-bf16.csv f32=$r/heldout-f32.csv \
  "tf32 (x @ W, W row-major)=$r/heldout-tf32-rrr.csv"
a=$r/autotune
$py $plot --title "Held-out problems: the cost model's choice and the measured choice (--autotune 3), H200" \
  --ylim 0.5,2 "$out/issue30-autotune.png" \
  "f16, the model's=$a/f16-model.csv" "f16, measured=$a/f16-at3.csv" \
  "bf16, measured=$a/bf16-at3.csv"
$py $plot --title "Training workload problems (f16, H100): the rule of choice on the tuning measurements" \
  --ylim 0.1,4 "$out/issue30-train-f16.png" f16=$r/train-f16.csv
$py $plot --title "The issue-15 shape set: the new families beside the issue-15 families, H100" \
  --ylim 0.1,8 "$out/issue30-shapes.png" \
  "f16 new=$r/shapes-f16-family.csv" "f16 issue 15=$r/shapes-f16-issue15-family.csv" \
  "f32 new=$r/shapes-f32-family.csv" "f32 issue 15=$r/shapes-f32-issue15-family.csv"
g=benchmarks/results/h100-issue34
s=$g/shipped
$py $plot --title "The shipped 16-bit grouped families beside torch._grouped_mm in its process (MoE shapes, then held-out models), H200" \
  --ylim 0.5,3 --ylabel "x torch._grouped_mm (same process; higher is better)" \
  "$out/issue34-grouped-torch.png" "bf16, B col-major=$s/bf16.csv" \
  "bf16, B row-major=$s/bf16-rrr.csv" "f16, B col-major=$s/f16.csv" \
  "f16, B row-major=$s/f16-rrr.csv"
$py $plot --title "The shipped FP8 grouped families beside torch._scaled_grouped_mm in its process (MoE shapes, then held-out models), H200" \
  --ylim 0.5,4 --ylabel "x torch._scaled_grouped_mm (same process; higher is better)" \
  "$out/issue34-fp8-grouped-torch.png" "rowwise, promoted=$s/fp8.csv" \
  "rowwise, use_fast_accum=$s/fp8-fast.csv" "per tensor, promoted=$s/fp8-tensor.csv" \
  "per tensor, use_fast_accum=$s/fp8-tensor-fast.csv"
f=benchmarks/results/h100-issue33
$py $plot --title "FP8 families on held-out problems before and after their transposed variants, H200" \
  --ylim 0.2,4 --ylabel "x cuBLASLt FP8 (same process; higher is better)" \
  "$out/issue33-fp8-heldout.png" \
  "per tensor, before=$f/fp8-heldout-tensor-old.csv" "per tensor, after=$f/fp8-heldout-tensor-new.csv" \
  "rowwise, before=$f/fp8-heldout-rowwise-old.csv" "rowwise, after=$f/fp8-heldout-rowwise-new.csv"
