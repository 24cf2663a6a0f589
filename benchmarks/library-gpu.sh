#!/usr/bin/env bash
# Issue 16 on the GPU, whole: gemmc's compiler library (with LLVM's shared
# libraries, carried as lib/cl.tar.xz) compiles shipped schedules in the
# programs themselves: the C++ consumer and Python with PyTorch
# (docs/library.md, "Status"). Run from a folder that holds consumer and
# consumer-run (test/consumer, built against `cmake --install`), lib/cl.tar.xz
# (libgemmc_compiler.so with libLLVM and what it needs), py/ (python/),
# ptx/ (examples compiled beforehand), examples/ and torch_matmul.py.
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
tar xJf lib/cl.tar.xz -C lib
export LD_LIBRARY_PATH=$PWD/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv > $out/gpu.txt 2>&1
ldd ./consumer | grep -E "gemmc|LLVM|not found" > $out/ldd.txt
{ for s in "sgemm-dynamic.gemm 1000 776 520" "sgemm-any-ld.gemm 1001 999 997" "sgemm-split-k-small.gemm 64 64 16384"; do
    set -- $s; echo "== consumer examples/$1 $2 $3 $4"; ./consumer examples/$1 $2 $3 $4; echo "rc=$?"; done
  echo "== consumer-run ptx/sgemm-dynamic.ptx"; ./consumer-run ptx/sgemm-dynamic.ptx 1000 776 520; echo "rc=$?"; } > $out/consumer.txt 2>&1
export PYTHONPATH=$PWD/py
(cd py/tests && timeout 180 python3 -m unittest -v test_cpu test_gpu) > $out/python-tests.txt 2>&1; echo "rc=$?" >> $out/python-tests.txt
(cd py/tests && GEMMC_PTX_DIR=$PWD/../../ptx timeout 120 python3 -m unittest -v test_gpu) > $out/python-tests-ptx.txt 2>&1; echo "rc=$?" >> $out/python-tests-ptx.txt
for ka in sgemm-dynamic:sm_90 tensorcore-f16-dynamic:sm_90 hopper-f16-dynamic:sm_90a; do
  k=${ka%%:*}
  timeout 120 python3 torch_matmul.py examples/$k.gemm --arch ${ka##*:} --sizes 256,512,1024,2048,3072,4096,6144,8192 --plot $out/tflops-$k.png > $out/example-$k.txt 2>&1; echo "rc=$?" >> $out/example-$k.txt
done
(cd $out && tar czf plots.tgz *.png && rm *.png)
tail -n 4 $out/*.txt
