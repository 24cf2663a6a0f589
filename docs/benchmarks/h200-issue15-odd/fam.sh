# usage: fam.sh PREC I [RUNS]: one process timing the family over the shape set.
cd .device/s2
p=$1; i=$2
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
timeout 290 ./gemm-bench --shapes shapes.txt $p-family.ptx --runs 3 --warmup 1 --shape-summary $OUT/fam$i-$p.csv > $OUT/fam$i-$p.txt 2>&1; echo "$p $i rc=$?"
grep -E "^shapes|^geometric" $OUT/fam$i-$p.txt; awk -F, 'NR>1 && $6<0.6' $OUT/fam$i-$p.csv
