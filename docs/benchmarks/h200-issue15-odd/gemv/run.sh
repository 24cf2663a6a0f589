cd .device/gv
for i in 0 1 2 3 4 5 6 7 8; do ./gemm-bench --size 4096x1x4096 --runs 20 g$i.ptx 2>&1 | grep -E "g$i|cuBLAS|FAIL" ; done > $OUT/gv.txt
cat $OUT/gv.txt
