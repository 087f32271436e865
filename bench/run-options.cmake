# ctest tools-bench-options: bench's option forms and its checks before any work. GNU forms (--opt=value, a unique
# prefix), --version and --help; each bad value, output path or --compare file must exit 2 at once, before a device
# is opened (nothing on stdout), with a message that names the problem (and lists the valid names for a list).
# Usage: cmake -DBENCH=path/to/bench -DVERSION=x.y.z -DDIR=work-folder -P run-options.cmake
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}/out")
set(_problems "")

# run(<name> <exit status> <regex the output must match> args...): stdout and stderr together are matched.
function(run name want_rc regex)
  execute_process(COMMAND "${BENCH}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${name}: bench ${ARGN} -> ${rc}\n${out}${err}")
  if(NOT rc STREQUAL "${want_rc}")
    set(_problems "${_problems}\n  ${name}: exit status ${rc}, want ${want_rc}" PARENT_SCOPE)
  elseif(NOT "${out}${err}" MATCHES "${regex}")
    set(_problems "${_problems}\n  ${name}: output does not match '${regex}'" PARENT_SCOPE)
  elseif(want_rc STREQUAL "2" AND NOT out STREQUAL "")
    # a usage error is found before anything runs: nothing on stdout
    set(_problems "${_problems}\n  ${name}: printed on stdout before failing (it did some work first)" PARENT_SCOPE)
  endif()
endfunction()

string(REPLACE "." "\\." _v "${VERSION}")
run(version 0 "^hcl bench ${_v}\n$" --version)
run(version-short 0 "^hcl bench ${_v}\n$" -V)
run(help 0 "usage: bench .*--noise-threshold F.*--compare OLD.json.*Exit status" --help)

# a short real run in GNU forms: --opt=value, a unique prefix (--rep), and -v
# (and the gate, forced on the CPU device: each timed run behind a sum over 1 MiB)
run(gnu-forms 0 "sizes: +--quick sizes, --scale 0\\.25.*gate: +a sum over 1 MiB \\(hcl_reduce, f32\\) before each timed run.*kernel +shape.*vecadd +n=250001 .*HCL: [0-9]+ timed run"
    --device=host --quick --scale=0.25 --kernels=vecadd --types=f32 --rep=2 --warmup=0 --no-launch
    --no-user-kernel --no-progress -v --gate-bytes=1M)

# --gemm-set skinny: only the skinny shapes, and the summary line after the table
run(gemm-set 0 "sizes: +--quick sizes, --gemm-set skinny.*gate: +none \\(a CPU device\\).*gemm +1x257x131 .*gemm skinny: median HCL/baseline over [0-9]+ shapes = "
    --device=host --quick --kernels=gemm --gemm-set=skinny --types=f32 --rep=2 --warmup=0 --no-launch --no-user-kernel
    --no-peak --no-transfer --no-progress)

# bad values: each names the option and what it wants; lists give the valid names
run(bad-kernel 2 "--kernels: unknown name 'nosuch'; valid names: vecadd, gemm, softmax, reduce, all"
    --kernels vecadd,nosuch)
run(bad-kernel-eq 2 "--kernels: unknown name 'gem'; valid names: vecadd, gemm, softmax, reduce, all" --kernels=gem)
run(bad-gemm-set 2 "--gemm-set: unknown name 'thin'; valid names: square, skinny, llm, all" --gemm-set thin)
run(bad-type 2 "--types: unknown name 'f64'; valid names: f32, tf32, f16, bf16, all" --types=f64)
run(empty-list 2 "--kernels: no name given; valid names: vecadd" --kernels=,)
run(bad-repeats 2 "--repeats: bad value '0': expected a whole number from 1 to 1000" --repeats=0)
run(bad-scale 2 "--scale: bad value '-1': expected a number above 0" --scale=-1)
run(bad-scale-text 2 "--scale: bad value '0.25x'" --scale 0.25x)
run(bad-noise 2 "--noise-threshold: bad value '0.9': expected a number above 1" --noise-threshold=0.9)
run(bad-gemm 2 "--gemm: bad value '12x0x3': expected N or MxNxK" --gemm 12x0x3)
run(bad-size 2 "--vecadd-n: bad value '12Q'" --vecadd-n 12Q)
run(bad-gate 2 "--gate-bytes: bad value '1T': expected a size in bytes" --gate-bytes 1T)
run(unknown-option 2 "unknown option '--nosuch'" --nosuch=3)
run(unknown-short 2 "unknown option '-x'" -x)
run(ambiguous-prefix 2 "ambiguous option '--no': it could be --no-verify --no-baselines" --no)
run(flag-with-value 2 "option '--quick' takes no value: '--quick=1'" --quick=1)
run(missing-value 2 "option '--json' needs a value" --json)
run(positional 2 "unexpected argument 'host'" host)
run(all-and-device 2 "--all and --device exclude each other" --all --device host)
# bench --comm's options
run(help-comm 0 "--comm-max-bytes N.*--comm-ops LIST.*busbw = algbw" --help)
run(comm-bad-op 2 "--comm-ops: unknown name 'allreduce'; valid names: all_reduce, all_gather, reduce_scatter,"
    --comm --comm-ops all_reduce,allreduce)
run(comm-bad-max 2 "--comm-max-bytes: bad value '0': expected a size in bytes above 0" --comm --comm-max-bytes 0)
run(comm-bad-iters 2 "--comm-iters: bad value '0': expected a whole number from 1 to 10000" --comm --comm-iters=0)
run(comm-min-above-max 2 "--comm-min-bytes 2097152 is above --comm-max-bytes 1048576" --comm --comm-min-bytes 2M
    --comm-max-bytes 1M)
run(comm-tf32 2 "--comm: --types tf32 has no meaning" --comm --types f32,tf32)
run(comm-and-all 2 "--comm and --all exclude each other" --comm --all)
run(comm-and-compare 2 "--comm and --compare exclude each other" --comm --compare ${DIR}/out/none.json)

# output paths: checked before the run
run(json-no-folder 2 "--json ${DIR}/missing/r\\.json: cannot write there: its folder does not exist"
    --device host --json ${DIR}/missing/r.json)
run(csv-is-folder 2 "--csv ${DIR}/out: cannot write there: it is a folder" --device host --csv ${DIR}/out)
run(plot-no-folder 2 "--plot ${DIR}/missing/p\\.svg: cannot write there: its folder does not exist"
    --device host --plot ${DIR}/missing/p.svg)
run(json-empty 2 "--json : cannot write there: the path is empty" --device host --json=)
run(same-file 2 "--json and --csv name the same file" --device host --json ${DIR}/out/x --csv ${DIR}/out/x)
file(WRITE "${DIR}/out/not-json.json" "this is not JSON\n")
run(compare-missing 2 "--compare: cannot open ${DIR}/out/none\\.json: No such file or directory"
    --device host --compare ${DIR}/out/none.json)
run(compare-not-json 2 "--compare: .*not-json\\.json: not valid JSON" --device host --compare ${DIR}/out/not-json.json)
file(WRITE "${DIR}/out/other.json" "{\"schema\": \"something/2\"}\n")
run(compare-not-bench 2 "not a bench JSON file" --device host --compare ${DIR}/out/other.json)
foreach(_f r.json p.svg)
  if(EXISTS "${DIR}/missing/${_f}")
    string(APPEND _problems "\n  ${DIR}/missing/${_f} exists")
  endif()
endforeach()

if(_problems)
  message(FATAL_ERROR "tools-bench-options:${_problems}")
endif()
message(STATUS "tools-bench-options: every option form and check behaved")
