cd .device/probe
for f in f16new f16fam f32new f32fam; do
./gemm-bench --shapes odd.txt --runs 10 --shape-summary $OUT/$f.csv $f.ptx > $OUT/$f.txt 2>&1
done
cd $OUT && tar cf all.tar *.csv *.txt && rm *.txt
