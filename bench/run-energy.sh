#!/bin/sh
# ctest tools-bench-energy: bench's energy figures on the host device over a fake powercap and hwmon (HCL_TELEMETRY_ROOT,
# docs/telemetry.md) whose package counter a background loop advances: the "energy:" idle line and a line under each
# row, the JSON (check-json.cmake with REQUIRE_ENERGY=1), the CSV's energy columns on every line, the plot; then with
# HCL_TELEMETRY=off the table has no energy line and the header says why.
# Usage: run-energy.sh BENCH DIR CHECK_JSON_CMAKE CMAKE
set -u
bench=$1 dir=$2 check=$3 cmake=$4
root=$dir/root
rm -rf "$dir" && mkdir -p "$root/sys/class/powercap/intel-rapl:0" "$root/sys/class/hwmon/hwmon0" "$root/proc" || exit 1
echo 1000000000000 >"$root/sys/class/powercap/intel-rapl:0/max_energy_range_uj"
echo 0 >"$root/sys/class/powercap/intel-rapl:0/energy_uj"
echo k10temp >"$root/sys/class/hwmon/hwmon0/name"
echo 48500 >"$root/sys/class/hwmon/hwmon0/temp1_input"
cp /proc/meminfo "$root/proc/meminfo"
touch "$dir/running"
(
    e=0
    while [ -f "$dir/running" ]; do # about 10 W: 100 mJ every 10 ms
        e=$((e + 100000))
        echo $e >"$root/sys/class/powercap/intel-rapl:0/energy_uj.new"
        mv "$root/sys/class/powercap/intel-rapl:0/energy_uj.new" "$root/sys/class/powercap/intel-rapl:0/energy_uj"
        sleep 0.01
    done
) &
writer=$!
args="--device host --kernels vecadd,gemm --types f32 --vecadd-n 100003 --gemm 67x129x95 --repeats 2 --warmup 1
      --seed 1 --no-progress --no-transfer --no-peak --no-launch --no-user-kernel --energy-window 0.05"
HCL_TELEMETRY_ROOT=$root "$bench" $args --json "$dir/e.json" --csv "$dir/e.csv" --plot "$dir/e.svg" >"$dir/out.txt" 2>&1
rc=$?
rm -f "$dir/running"
wait $writer
cat "$dir/out.txt"
fail=0
[ $rc -eq 0 ] || { echo "FAIL: bench exited $rc"; fail=1; }
grep -q "^energy:    powercap+hwmon, " "$dir/out.txt" && grep -q "idle [0-9.]* W over [0-9.]* s (energy counter)" "$dir/out.txt" ||
    { echo "FAIL: no idle line"; fail=1; }
n=$(grep -c "^        energy: [0-9.e+-]* J/run, [0-9.]* W over [0-9.]* s, [0-9]* runs (energy counter); [0-9.e+-]* G" "$dir/out.txt")
[ "$n" -eq 2 ] || { echo "FAIL: $n energy lines under the rows, not 2"; fail=1; }
wide=$(awk 'length > 120' "$dir/out.txt" | wc -l)
[ "$wide" -eq 0 ] || { echo "FAIL: $wide lines wider than 120 columns"; fail=1; }
"$cmake" -DJSON="$dir/e.json" -DKERNELS="vecadd;gemm" -DREQUIRE_ENERGY=1 -P "$check" || fail=1
head -1 "$dir/e.csv" | grep -q ",energy_method,energy_window_s,.*,throttled,throttle_reasons,idle_power_w$" ||
    { echo "FAIL: CSV header lacks the energy columns"; fail=1; }
fields=$(sed 's/"[^"]*"/q/g' "$dir/e.csv" | awk -F, '{ print NF }' | sort -u | wc -l)
[ "$fields" -eq 1 ] || { echo "FAIL: CSV lines of different field counts"; fail=1; }
grep -q ",energy counter,[0-9.e+-]*,[0-9]*,[0-9.e+-]*,[0-9.e+-]*," "$dir/e.csv" || { echo "FAIL: no CSV energy cells"; fail=1; }
grep -q "GFLOP/J at [0-9]* W" "$dir/e.svg" || { echo "FAIL: the plot has no GFLOP/J label"; fail=1; }
HCL_TELEMETRY=off "$bench" $args >"$dir/off.txt" 2>&1 || { echo "FAIL: bench with HCL_TELEMETRY=off"; fail=1; }
grep -q "^energy:    not measured: telemetry is off (HCL_TELEMETRY=off)" "$dir/off.txt" ||
    { cat "$dir/off.txt"; echo "FAIL: HCL_TELEMETRY=off: no 'not measured' line"; fail=1; }
! grep -q "^        energy:" "$dir/off.txt" || { echo "FAIL: HCL_TELEMETRY=off: energy lines in the table"; fail=1; }
[ $fail -eq 0 ] && echo "tools-bench-energy: passed"
exit $fail
