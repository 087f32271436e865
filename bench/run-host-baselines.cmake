# ctest tools-bench-host-baselines: the host baselines are fair to the host driver.
#   1. OMP_NUM_THREADS=3 (more threads than this machine's cores is fine): the host driver states 3 threads, so the
#      parallel copy must run on 3 (checked on every call) and OpenBLAS be set to 3; the JSON says so, the copy is
#      verified bit for bit, and OpenBLAS names its core (check-json.cmake with EXPECT_THREADS).
#   2. OPENBLAS_CORETYPE=Prescott on a CPU with AVX2 and FMA: the row is marked as a fallback ("OpenBLAS Prescott!"
#      and the line under the table) and the JSON has generic_fallback true. Elsewhere this part is reported skipped.
# Usage: cmake -DBENCH=path/to/bench -DDIR=out-folder -P run-host-baselines.cmake
include(${CMAKE_CURRENT_LIST_DIR}/run-bench.cmake)
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
set(_args --device host --kernels vecadd,gemm --types f32 --vecadd-n 1000003 --gemm 129x67x95 --repeats 2 --warmup 1
    --no-launch --no-user-kernel --no-transfer --no-peak --no-progress)
set(ENV{OMP_NUM_THREADS} 3)
unset(ENV{OPENBLAS_CORETYPE})
bench_run(ARGS ${_args} --json "${DIR}/threads.json")
if(NOT _out MATCHES "memcpy, 3 threads" OR NOT _out MATCHES "openblas_set_num_threads\\(3\\)")
  message(FATAL_ERROR "the copy or OpenBLAS does not run on the host driver's 3 threads")
endif()
set(JSON "${DIR}/threads.json")
set(EXPECT_THREADS 3)
set(KERNELS vecadd gemm)
include(${CMAKE_CURRENT_LIST_DIR}/check-json.cmake)

unset(ENV{OMP_NUM_THREADS})
if(NOT _out MATCHES "OpenBLAS [A-Za-z0-9]+")
  message("SKIPPED: OpenBLAS is not available here: the fallback mark is not checked")
  return()
endif()
file(READ /proc/cpuinfo _cpu)
if(NOT _cpu MATCHES " avx2 " OR NOT _cpu MATCHES " fma ")
  message("SKIPPED: this CPU lacks AVX2/FMA: Prescott is no fallback here, so the mark is not checked")
  return()
endif()
set(ENV{OPENBLAS_CORETYPE} Prescott)
message("under OPENBLAS_CORETYPE=Prescott:")
bench_run(ARGS ${_args} --json "${DIR}/prescott.json")
if(NOT _out MATCHES "gemm +129x67x95 +GFLOP/s[^\n]* OpenBLAS Prescott! " OR NOT _out MATCHES "\n! OpenBLAS Prescott! fell back")
  message(FATAL_ERROR "the gemm row or the line under the table does not mark OpenBLAS's Prescott fallback")
endif()
file(READ "${DIR}/prescott.json" _j)
if(NOT _j MATCHES "\"corename\": \"Prescott\", \"generic_fallback\": true")
  message(FATAL_ERROR "prescott.json does not say generic_fallback true for core Prescott")
endif()
message(STATUS "host baselines: 3 threads followed; the Prescott fallback is marked")
