#!/usr/bin/env python3
"""Put HCL's telemetry beside nvidia-smi's, sampled in the same run (docs/telemetry.md, "Checking against nvidia-smi").

  nvidia-smi --query-gpu=timestamp,uuid,power.draw,power.draw.instant,clocks.current.sm,clocks.current.memory \\
      --format=csv -lms 100 > smi.csv &    # (and the energy counter's field where the driver has one)
  hcl-info --monitor 100 --json > monitor.jsonl &      # and/or
  bench --device cuda:0 --energy-window 2 --json bench.json
  compare_smi.py --smi smi.csv [--monitor monitor.jsonl] [--bench bench.json] [--rows N]

Monitor lines: each HCL reading beside the nvidia-smi reading of the same GPU (matched by UUID) nearest in time:
power, SM and memory clocks, and the energy counters' increase over the whole run; the share of power readings
within 5% and of clock readings equal. Bench rows: each row's average power beside the mean of nvidia-smi's
power.draw.instant samples in the row's window (power.draw where the CSV has no instant readings: a one-second
average on Hopper, which lags), and the energy beside nvidia-smi's energy counter over the window where it has one.
Exit status 0; 2 on a usage error or an unreadable file.
"""
import argparse
import bisect
import csv
import datetime
import json
import re
import statistics
import sys


def norm_uuid(text):
    hexes = re.sub(r"[^0-9a-f]", "", text.lower().replace("gpu-", "").replace("mig-", "").replace("uuid:", ""))
    return hexes if len(hexes) == 32 else None


def number(cell):
    m = re.match(r"\s*([-+0-9.eE]+)", cell or "")
    try:
        return float(m.group(1)) if m else None
    except ValueError:
        return None


def load_smi(path):
    """{uuid: sorted [(unix_time, power_w, energy_j, sm_mhz, mem_mhz, instant_power_w)]}"""
    rows = list(csv.reader(open(path, encoding="utf-8", errors="replace")))
    head = [h.strip() for h in rows[0]]

    def col(name):
        for i, h in enumerate(head):
            if h.split(" ")[0] == name:
                return i
        return None
    ci = {k: col(k) for k in ("timestamp", "uuid", "index", "power.draw", "power.draw.instant", "clocks.sm",
                              "clocks.mem", "clocks.current.sm", "clocks.current.memory")}
    # the energy counter's column: its name differs between drivers (none on some; then power is compared only)
    ci["energy"] = next((i for i, h in enumerate(head) if "energy" in h.split(" ")[0]), None)
    energy_scale = 1.0
    if ci["energy"] is not None and "[mJ]" in head[ci["energy"]]:
        energy_scale = 1e-3
    out = {}
    for r in rows[1:]:
        if len(r) != len(head):
            continue
        try:
            t = datetime.datetime.strptime(r[ci["timestamp"]].strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()
        except (ValueError, TypeError):
            continue
        key = norm_uuid(r[ci["uuid"]]) if ci["uuid"] is not None else r[ci["index"]].strip()
        get = lambda k: number(r[ci[k]]) if ci[k] is not None else None
        e = get("energy")
        sm = get("clocks.sm") if ci["clocks.sm"] is not None else get("clocks.current.sm")
        mem = get("clocks.mem") if ci["clocks.mem"] is not None else get("clocks.current.memory")
        out.setdefault(key, []).append((t, get("power.draw"), e * energy_scale if e is not None else None, sm, mem,
                                        get("power.draw.instant")))
    for v in out.values():
        v.sort()
    return out


def nearest(samples, t):
    times = [s[0] for s in samples]
    i = bisect.bisect_left(times, t)
    best = [s for s in samples[max(0, i - 1):i + 1]]
    return min(best, key=lambda s: abs(s[0] - t)) if best else None


def pct(a, b):
    return 100.0 * (a - b) / b if a is not None and b else None


def compare_monitor(smi, path):
    lines = [json.loads(x) for x in open(path) if x.strip().startswith("{")]
    by_gpu = {}
    for x in lines:
        u = norm_uuid(x.get("identity", ""))
        if u in smi:
            by_gpu.setdefault(u, []).append(x)
    if not by_gpu:
        print("monitor: no line of a GPU that nvidia-smi sampled (matched by UUID)")
        return
    for u, xs in by_gpu.items():
        s = smi[u]
        print(f"monitor vs nvidia-smi, GPU {xs[0]['selector']} (GPU-{u[:8]}...): {len(xs)} HCL readings, {len(s)} nvidia-smi")
        print(f"  {'unix_time':>14} {'HCL W':>8} {'smi W':>8} {'diff%':>6} {'HCL SM':>6} {'smi SM':>6} {'HCL mem':>7} {'smi mem':>7}")
        pdiff, sm_eq, mem_eq, n_sm, n_mem = [], 0, 0, 0, 0
        for k, x in enumerate(xs):
            near = nearest(s, x["unix_time"])
            if not near or abs(near[0] - x["unix_time"]) > 0.2:
                continue
            d = pct(x.get("power_w"), near[1])
            if d is not None:
                pdiff.append(abs(d))
            if x.get("clock_sm_mhz") is not None and near[3] is not None:
                n_sm += 1
                sm_eq += x["clock_sm_mhz"] == near[3]
            if x.get("clock_memory_mhz") is not None and near[4] is not None:
                n_mem += 1
                mem_eq += x["clock_memory_mhz"] == near[4]
            if k < 12 or k % max(1, len(xs) // 12) == 0:
                print(f"  {x['unix_time']:14.3f} {x.get('power_w') or 0:8.1f} {near[1] or 0:8.1f} "
                      f"{d if d is not None else float('nan'):6.1f} {x.get('clock_sm_mhz') or 0:6.0f} {near[3] or 0:6.0f} "
                      f"{x.get('clock_memory_mhz') or 0:7.0f} {near[4] or 0:7.0f}")
        if pdiff:
            within = sum(d <= 5.0 for d in pdiff)
            print(f"  power: {within} of {len(pdiff)} readings within 5% of nvidia-smi's nearest (median |diff| "
                  f"{statistics.median(pdiff):.2f}%)")
        print(f"  clocks: SM equal in {sm_eq} of {n_sm}, memory equal in {mem_eq} of {n_mem}")
        e = [x for x in xs if x.get("energy_j") is not None]
        se = [v for v in s if v[2] is not None and e and e[0]["unix_time"] <= v[0] <= e[-1]["unix_time"]]
        if len(e) > 1 and len(se) > 1:
            he = e[-1]["energy_j"] - e[0]["energy_j"]
            sme = se[-1][2] - se[0][2]
            print(f"  energy over the run: HCL {he:.1f} J in {e[-1]['unix_time'] - e[0]['unix_time']:.1f} s, "
                  f"nvidia-smi {sme:.1f} J in {se[-1][0] - se[0][0]:.1f} s")


def compare_bench(smi, path, rows):
    doc = json.load(open(path))
    for d in doc.get("devices", []):
        u = norm_uuid(d.get("identity", ""))
        if d.get("status") != "ran" or u not in smi:
            continue
        s = smi[u]
        print(f"bench vs nvidia-smi, {d['selector']} {d['name']}:")
        print(f"  {'kernel':7} {'shape':22} {'window':>6} {'HCL W':>7} {'smi W':>7} {'diff%':>6} {'HCL J':>8} "
              f"{'smi J':>8} {'diff%':>6} {'SM MHz':>11} {'smi SM':>11}")
        shown, diffs = 0, []
        for r in d.get("results", []):
            e = (r.get("hcl") or {}).get("energy")
            if not e:
                continue
            t0, t1 = e["start_unix"], e["start_unix"] + e["window_s"]
            inside = [v for v in s if t0 <= v[0] <= t1]
            # the instantaneous readings where nvidia-smi gives them (power.draw is a one-second average on Hopper,
            # which lags a window of a few seconds by most of a second)
            pw = [v[5] for v in inside if v[5] is not None] or [v[1] for v in inside if v[1] is not None]
            en = [v for v in inside if v[2] is not None]
            smi_w = statistics.mean(pw) if pw else None
            smi_j = (en[-1][2] - en[0][2]) * e["window_s"] / (en[-1][0] - en[0][0]) if len(en) > 1 and en[-1][0] > en[0][0] else None
            sms = [v[3] for v in inside if v[3] is not None]
            dw, dj = pct(e["avg_power_w"], smi_w), pct(e["joules"], smi_j)
            if dw is not None:
                diffs.append(abs(dw))
            if shown < rows:
                hsm = f"{e['sm_clock_min_mhz'] or 0:.0f}-{e['sm_clock_max_mhz'] or 0:.0f}"
                ssm = f"{min(sms):.0f}-{max(sms):.0f}" if sms else "-"
                print(f"  {r['kernel']:7} {r['shape'][:22]:22} {e['window_s']:6.2f} {e['avg_power_w']:7.1f} "
                      f"{smi_w if smi_w is not None else float('nan'):7.1f} {dw if dw is not None else float('nan'):6.1f} "
                      f"{e['joules']:8.1f} {smi_j if smi_j is not None else float('nan'):8.1f} "
                      f"{dj if dj is not None else float('nan'):6.1f} {hsm:>11} {ssm:>11}")
                shown += 1
        if diffs:
            which = "power.draw.instant" if any(v[5] is not None for v in s) else "power.draw"
            print(f"  average power: {sum(x <= 5 for x in diffs)} of {len(diffs)} rows within 5% of the mean of "
                  f"nvidia-smi's {which} in the row's window")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smi", required=True)
    ap.add_argument("--monitor")
    ap.add_argument("--bench")
    ap.add_argument("--rows", type=int, default=20)
    a = ap.parse_args()
    try:
        smi = load_smi(a.smi)
        if a.monitor:
            compare_monitor(smi, a.monitor)
        if a.bench:
            compare_bench(smi, a.bench, a.rows)
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"compare_smi: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
