# The `consumer` test: install the build into a fresh prefix, configure and
# build test/consumer against it with find_package(gemmc), and run it.
# Then the Python package from the prefix alone (PREFIX/lib/python): it
# finds the installed runtime library and the shipped families.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DSCHEDULE=...
#         -DCUDA_ROOT=... -DPYTHON=... -P run.cmake
file(REMOVE_RECURSE ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result
                  OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${ARGN}\n${output}")
  endif()
  message(STATUS "${output}")
endfunction()
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G Ninja
     -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCUDAToolkit_ROOT=${CUDA_ROOT})
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${WORK_DIR}/build/consumer ${SCHEDULE})
# (No semicolons in the code: step's ARGN would split it there.)
if(PYTHON)
  step(${CMAKE_COMMAND} -E env --unset=GEMMC_LIBRARY_DIR
       --unset=GEMMC_FAMILY_DIR PYTHONPATH=${WORK_DIR}/prefix/lib/python
       ${PYTHON} -c "
import gemmc, gemmc._capi as c
k = gemmc.family('bfloat16', 'row', 'col', arch='sm_90a')
lib = c.runtime().path
assert lib.startswith('${WORK_DIR}/prefix/lib/'), lib
assert gemmc.__file__.startswith('${WORK_DIR}/prefix/lib/python/gemmc/')
print('installed package:', k, 'from', lib)")
endif()
