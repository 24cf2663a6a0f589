#!/usr/bin/env bash
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p $out
timeout 100 bin/gemm-bench --runs 3 --bias col --relu --layout rcc bc/*.ptx > $out/bc.log 2>&1; echo "rc=$?"; grep -E "PASS|FAIL|SKIP|rror|problem" $out/bc.log | cut -c1-140
