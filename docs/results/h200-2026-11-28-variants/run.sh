#!/bin/bash
# The conformance suite on the GPU machine with each GPU kernel variant forced (README.md beside this file).
# From the repository root there:  docs/results/h200-2026-11-28-variants/run.sh BUILD OUT [cuda|opencl|both] [VARIANTS]
# BUILD holds bin/hcl-conformance, bin/hcl-info, lib/ and device-env.sh (the device tool's packing script); the logs, one per
# backend x op x variant, and summary.txt go to OUT. VARIANTS (optional) limits the runs to "op:variant ..." names.
set -u
build=${1:?usage: run.sh BUILD OUT [cuda|opencl|both] [VARIANTS]} out=${2:?} which=${3:-both} only=${4:-}
source "$build/device-env.sh"
export HCL_CACHE_DIR=/tmp/hcl-variants-cache HCL_SEED=${HCL_SEED:-20261128}
conf="$build/bin/hcl-conformance"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv > "$out/gpu.txt" 2>&1
"$build/bin/hcl-info" -l > "$out/hcl-info.txt" 2>&1
# With the machine's own OpenCL loader, hcl-info saw PoCL (the Xeon) as opencl:0 and the H200 as opencl:1, but the
# suite saw one OpenCL device, PoCL (2026-11-28, README.md); with Debian's ocl-icd carried in BUILD/device-libs the
# loader sees NVIDIA's driver alone (device-env.sh). The OpenCL runs name the backend alone, which means its first GPU,
# and summary.txt shows the device each log ran on.
cl=$(awk '$1 ~ /^opencl:[0-9]+$/ && $2 == "GPU" {print $1; exit}' "$out/hcl-info.txt")

# The cases of each op: its suite and the typed cases that call it (types/large and types/api_rules call every op).
filter() {
    case $1 in
    all) echo "@(vecadd|gemm|softmax|reduce|types|api)/*" ;;
    reduce) echo "@(reduce/*|types/reduce|types/api_rules|types/large)" ;;
    *) echo "@($1/*|types/$1*|types/api_rules|types/large)" ;;
    esac
}

# run BACKEND DEVICE OP VARIANT: one suite run, its log named BACKEND-OP-VARIANT.txt
run() {
    local b=$1 dev=$2 op=$3 v=$4 var log t0
    [ -n "$only" ] && [ "$v" != auto ] && [[ " $only " != *" $op:$v "* ]] && return
    var=HCL_$(echo "$op" | tr a-z A-Z)_VARIANT log="$out/$b-$op-$v.txt" t0=$(date +%s)
    [ "$v" = auto ] && var=HCL_NO_OVERRIDE
    env HCL_BACKEND="$b" ${dev:+HCL_DEVICE=$dev} "$var=$v" timeout 200 "$conf" --verbose --jobs "${HCL_VARIANTS_JOBS:-8}" \
        --filter "$(filter "$op")" > "$log" 2>&1
    echo "run.sh: rc $? in $(($(date +%s) - t0)) s: HCL_BACKEND=$b ${dev:+HCL_DEVICE=$dev }$var=$v" >> "$log"
}

cuda() {
    run cuda "" all auto
    for v in wgmma mma mma-splitk simt simt-splitk gemv smallk mfma; do run cuda "" gemm $v; done
    for v in warp split cluster staged streamed; do run cuda "" softmax $v; done
    run cuda "" reduce vector
}
opencl() {
    [ -n "$cl" ] || { echo "no OpenCL GPU in hcl-info -l" > "$out/opencl-none.txt"; return; }
    run opencl "" all auto
    for v in simt simt16 simt8 xmx; do run opencl "" gemm $v; done
    for v in rows8 rows cached cached64 parts streamed; do run opencl "" softmax $v; done
    for v in vector runs; do run opencl "" reduce $v; done
}
case $which in
cuda) cuda ;;
opencl) opencl ;;
*) cuda & opencl & wait ;;
esac

# summary.txt: per log, Criterion's totals and the forced calls that ran and were refused
for f in "$out"/cuda-*.txt "$out"/opencl-*.txt; do
    [ -f "$f" ] || continue
    awk -v name="$(basename "$f" .txt)" '
        /^\[PASS\]/ {p++} /^\[FAIL\]/ {x++} /^\[SKIP\]/ && !/not selected|Test is disabled/ {s++}
        /forced: .* built-in call\(s\) ran, [0-9]+ refused/ {
            for (i = 1; i <= NF; i++) if ($i == "built-in") r += $(i - 1); else if ($i == "refused") q += $(i - 1)
        }
        /^run.sh: rc/ {rc = $3}
        !dev && match($0, /device [a-z]+:[0-9]+ "[^"]*"/) {dev = substr($0, RSTART + 7, RLENGTH - 7)}
        END {printf "%-24s passed %3d  failed %3d  skipped %3d  calls ran %5d  refused %5d  rc %-3s %s\n", name, p, x, s, r,
                    q, rc, dev}
    ' "$f"
done > "$out/summary.txt"
cat "$out/summary.txt"
