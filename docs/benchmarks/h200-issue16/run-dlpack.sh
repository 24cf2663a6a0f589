#!/usr/bin/env bash
# The Python package's DLPack path on the GPU (torch bfloat16).
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
[ -f lib/libLLVM.so.22.1 ] || tar xJf lib/cl.tar.xz -C lib
export LD_LIBRARY_PATH=$PWD/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
python3 -c "import cupy; print('cupy', cupy.__version__)" > $out/cupy.txt 2>&1
pip list 2>/dev/null | grep -iE "cupy|jax|numba|torch|triton" >> $out/cupy.txt
export PYTHONPATH=$PWD/py
(cd py/tests && timeout 180 python3 -m unittest -v test_cpu test_gpu) > $out/python-tests.txt 2>&1; echo "rc=$?" >> $out/python-tests.txt
(cd py/tests && GEMMC_PTX_DIR=$PWD/../../ptx timeout 120 python3 -m unittest -v test_gpu) > $out/python-tests-ptx.txt 2>&1; echo "rc=$?" >> $out/python-tests-ptx.txt
tail -n 3 $out/*.txt
