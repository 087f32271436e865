#!/bin/sh
# ctest conformance-runner-starts-nothing: the suite's runner process (which lists the backends and spawns every
# test process) loads no driver module, so it starts no vendor runtime; only the test processes do, each the one it
# tests. A runner that had started CUDA, NVIDIA's OpenCL or PoCL's threads left the test processes on a machine with
# two OpenCL platforms one device short. Checked with the dynamic loader's own log (LD_DEBUG=files, one file per
# process, each line headed by the pid that loaded): no line of the runner's pid may name a libhcl-<backend>.so (the
# child it forks to list the backends writes to the same file, under its own pid), and a test process must load one
# (else the check would see nothing).
#   runner-starts-nothing.sh HCL_CONFORMANCE
conf=${1:?usage: runner-starts-nothing.sh HCL_CONFORMANCE}
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
LD_DEBUG=files LD_DEBUG_OUTPUT=$dir/ld HCL_BACKEND=host "$conf" --jobs 1 --filter 'vecadd/bad_args' \
    >"$dir/out" 2>&1 &
pid=$!
wait $pid
rc=$?
if [ $rc -ne 0 ]; then
    cat "$dir/out"
    echo "FAIL: the suite exited with $rc"
    exit 1
fi
runner=$dir/ld.$pid
if [ ! -s "$runner" ]; then
    echo "FAIL: the dynamic loader wrote no log for the runner (pid $pid): cannot check"
    exit 1
fi
modules='libhcl-(cuda|hip|levelzero|opencl)\.so'
if grep -Eq "^ *$pid:.*file=[^ ]*$modules" "$runner"; then
    echo "FAIL: the runner process (pid $pid) loaded driver modules:"
    grep -E "^ *$pid:" "$runner" | grep -Eo "file=[^ ]*$modules" | sort -u
    exit 1
fi
loaded=0
for f in "$dir"/ld.*; do
    [ "$f" = "$runner" ] && continue
    grep -Eq "file=[^ ]*$modules" "$f" && loaded=1
done
if [ $loaded -ne 1 ]; then
    echo "FAIL: no test process loaded a driver module either: the check cannot tell (is any driver module built?)"
    exit 1
fi
echo "ok: the runner (pid $pid) loaded no driver module; the test processes did"
