#!/usr/bin/env bash
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p $out
for set in "h_bk64 h_bk64_s4 h_bk64_s2" "h_bk64_8k" "b_bk64" "t_bk32_s4 t_s4" "t_s4_8k"; do
  files=""; for k in $set; do files="$files ex/$k.ptx"; done
  timeout 90 bin/gemm-bench --runs 20 $files > $out/${set%% *}.log 2>&1; echo rc=$?
  grep -E "PASS|FAIL|rror" $out/${set%% *}.log
done
