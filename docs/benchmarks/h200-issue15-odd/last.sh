cd .device/s2
bash fam.sh f32 3
timeout 100 ./gemm-bench f16-family.ptx --sweep random --count 60 --max-size 3000 --seed 37 > $OUT/sweep-f16.log 2>&1; echo "sweep f16 rc=$? $(tail -1 $OUT/sweep-f16.log)"
for s in 123x4567x891 4096x1x4096 1001x999x997; do
  timeout 60 compute-sanitizer --tool memcheck ./gemm-bench --size $s --runs 1 --warmup 0 --no-cublas f16-family.ptx > $OUT/mc-f16-$s.log 2>&1; echo "memcheck f16 $s rc=$? $(grep -c PASS $OUT/mc-f16-$s.log) $(tail -1 $OUT/mc-f16-$s.log)"
  timeout 60 compute-sanitizer --tool memcheck ./gemm-bench --size $s --runs 1 --warmup 0 --no-cublas f32-family.ptx > $OUT/mc-f32-$s.log 2>&1; echo "memcheck f32 $s rc=$? $(grep -c PASS $OUT/mc-f32-$s.log) $(tail -1 $OUT/mc-f32-$s.log)"
done
cd $OUT && tar cf mc.tar mc-*.log && rm mc-*.log fam3-f32.txt
