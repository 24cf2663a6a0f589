#!/usr/bin/env bash
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p $out
b() { name=$1; shift; timeout 100 bin/gemm-bench --runs 3 "$@" > $out/$name.log 2>&1; echo "== $name rc=$?"; grep -E "PASS|FAIL|rror" $out/$name.log | cut -c1-130; }
b rrr t2/*-rrr.ptx t2/*-t2.ptx
for l in crr rcr rrc ccc; do b $l t2/*-$l.ptx; done
