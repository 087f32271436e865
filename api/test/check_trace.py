#!/usr/bin/env python3
"""check_trace.py CASE TRACE_SAMPLE: run trace_sample with HCL_TRACE set and check the trace file's structure.

CASE host / opencl / cuda: the sample on that backend (77, skipped, when it has no device); every record has the fields of
its phase; the program's process, each thread and each queue track are named; API slices nest properly on each
thread; the sample's calls are all there with their arguments and statuses; each flow start has one end with the same
id; each device slice lies on a named queue track, after the start of the call that queued it (give or take the
clock alignment's stated error) and inside the trace.
CASE ring: HCL_TRACE_EVENTS=8 forces many writes of the buffer; the file is still one valid JSON document holding
every record (otherData.events), and the result has the same calls as with a large buffer. A bad HCL_TRACE_EVENTS
warns and traces anyway; an HCL_TRACE that cannot be written is an error message, not a crash.
CASE mt (then TRACE_SAMPLE is trace_threads): threads launch on the host backend while traces start and stop from
several threads and threads exit mid-trace; every file is valid JSON with every record, named tracks, nested calls and
paired flows, and the trace that spans the whole run holds exactly the launches made.
Exit 0 when every check held, 1 otherwise, 77 skipped."""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL " + what)
    return ok


def run_sample(sample, selector, trace, extra_env=None, mode=()):
    env = dict(os.environ, HCL_TRACE=trace)
    env.pop("HCL_TRACE_EVENTS", None)
    env.update(extra_env or {})
    # a first run on PoCL builds the built-in programs' kernels (about 150 s on 2 busy cores, 2026-11-27)
    p = subprocess.run([sample, selector, *mode], env=env, capture_output=True, text=True, timeout=400)
    return p


FIELDS = {
    "X": ("name", "ph", "ts", "dur", "pid", "tid", "cat", "args"),
    "s": ("name", "ph", "ts", "pid", "tid", "id", "cat"),
    "f": ("name", "ph", "ts", "pid", "tid", "id", "cat", "bp"),
    "M": ("name", "ph", "pid", "tid", "args"),
}

CALLS = ["hcl_device_open", "hcl_queue_create", "hcl_buffer_create", "hcl_module_create", "hcl_kernel_create",
         "hcl_buffer_write", "hcl_buffer_write_async", "hcl_event_wait", "hcl_event_release", "hcl_buffer_fill",
         "hcl_buffer_copy_async", "hcl_vecadd", "hcl_reduce", "hcl_softmax", "hcl_gemm", "hcl_queue_finish",
         "hcl_kernel_launch", "hcl_buffer_read", "hcl_kernel_release", "hcl_module_release", "hcl_buffer_release",
         "hcl_queue_release", "hcl_device_release"]
# the calls that queue one command each in the sample (so one device slice each)
QUEUED = ["hcl_buffer_write", "hcl_buffer_write_async", "hcl_buffer_fill", "hcl_buffer_copy_async", "hcl_vecadd",
          "hcl_reduce", "hcl_softmax", "hcl_gemm", "hcl_kernel_launch", "hcl_buffer_read"]


def check_threads(api, names, label):
    """Each API slice's thread track is named and its status given; slices nest on each thread. Returns them by
    thread."""
    by_thread = {}
    for e in api:
        check((e["pid"], e["tid"]) in names, f"{label}: thread track {e['tid']} is named")
        check("status" in e["args"], f"{label}: {e['name']} has its status")
        by_thread.setdefault(e["tid"], []).append(e)
    for tid, slices in by_thread.items():
        slices.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in slices:
            while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"]:
                stack.pop()
            if stack:
                top = stack[-1]
                check(e["ts"] + e["dur"] <= top["ts"] + top["dur"],
                      f"{label}: {e['name']} at {e['ts']} overlaps {top['name']} without nesting in it")
            stack.append(e)
    return by_thread


def check_threaded(doc, label):
    """A trace written while threads came and went and tracing started and stopped (trace_threads): every record
    written (otherData.events), every command timed, every track named, calls nested per thread, each flow start paired
    with one end. Returns the API and device slices."""
    events = doc.get("traceEvents", [])
    other = doc.get("otherData", {})
    check(other.get("events") == len(events), f"{label}: otherData.events {other.get('events')} == {len(events)}")
    check(other.get("commands_untimed") == 0, f"{label}: every command timed ({other.get('commands_untimed')})")
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    procs = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    api = [e for e in events if e["ph"] == "X" and e["cat"] == "api"]
    dev = [e for e in events if e["ph"] == "X" and e["cat"] == "device"]
    check_threads(api, names, label)
    for e in api + dev:
        check(e["pid"] in procs, f"{label}: process {e['pid']} is named")
    for e in dev:
        check(names.get((e["pid"], e["tid"]), "").startswith("queue "), f"{label}: queue track {e['tid']} named")
    starts = [e["id"] for e in events if e["ph"] == "s"]
    ends = [e["id"] for e in events if e["ph"] == "f"]
    check(len(set(starts)) == len(starts) and len(set(ends)) == len(ends), f"{label}: flow ids are unique")
    check(set(starts) == set(ends), f"{label}: flows pair up ({len(starts)} starts, {len(ends)} ends)")
    return api, dev


def check_structure(doc, label):
    events = doc.get("traceEvents")
    if not check(isinstance(events, list) and events, f"{label}: traceEvents is a non-empty list"):
        return None
    check(doc.get("displayTimeUnit") == "ns", f"{label}: displayTimeUnit is ns")
    other = doc.get("otherData", {})
    check(other.get("events") == len(events), f"{label}: otherData.events {other.get('events')} == {len(events)}")
    check(other.get("capacity", 0) > 0 and other.get("flushes", 0) >= 1, f"{label}: otherData: {other}")
    check(other.get("commands_untimed") == 0, f"{label}: every command was timed ({other.get('commands_untimed')})")
    for e in events:
        need = FIELDS.get(e.get("ph"))
        if not check(need is not None, f"{label}: known phase in {e}"):
            continue
        missing = [k for k in need if k not in e]
        check(not missing, f"{label}: {e.get('ph')} record lacks {missing}: {e}")
        if e["ph"] == "X":
            check(isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float)) and e["dur"] >= 0,
                  f"{label}: numeric ts and dur >= 0: {e}")
    xs = [e for e in events if e["ph"] == "X"]
    api = [e for e in xs if e["cat"] == "api"]
    dev = [e for e in xs if e["cat"] == "device"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    procs = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}

    # host side: one process, named; every thread track named; slices nest on each thread
    host_pids = {e["pid"] for e in api}
    check(len(host_pids) == 1, f"{label}: API slices in one process ({host_pids})")
    for pid in host_pids:
        check(pid in procs and "trace_sample" in procs[pid], f"{label}: the program's process is named ({procs})")
    by_thread = check_threads(api, names, label)

    seen = [e["name"] for e in api]
    for c in CALLS:
        check(c in seen, f"{label}: the trace has {c}")
    by_name = {}
    for e in api:
        by_name.setdefault(e["name"], []).append(e)
    if "hcl_kernel_launch" in by_name:
        a = by_name["hcl_kernel_launch"][0]["args"]
        check(a.get("kernel") == "scale" and a.get("grid_x") == 64 and a.get("block_x") == 64,
              f"{label}: the launch's kernel name, grid and block: {a}")
    if "hcl_device_open" in by_name:
        check(by_name["hcl_device_open"][0]["args"].get("selector") == label,
              f"{label}: hcl_device_open's selector: {by_name['hcl_device_open'][0]['args']}")
    if "hcl_buffer_create" in by_name:
        check(by_name["hcl_buffer_create"][0]["args"].get("size") == 16384, f"{label}: hcl_buffer_create's size")
    statuses = [e["args"]["status"] for e in by_name.get("hcl_buffer_read", [])]
    check("HCL_ERROR_OUT_OF_RANGE" in statuses and "HCL_SUCCESS" in statuses,
          f"{label}: hcl_buffer_read's statuses, the failed one included: {statuses}")

    # device side: named queue tracks in named device processes, two queues
    queues = {(e["pid"], e["tid"]) for e in dev}
    check(len(queues) == 2, f"{label}: two queue tracks ({queues})")
    for pid, tid in queues:
        check(pid not in host_pids, f"{label}: device track {pid} apart from the program's process")
        check(names.get((pid, tid), "").startswith("queue "), f"{label}: queue track {(pid, tid)} is named")
        check(procs.get(pid, "").startswith(label + ":"), f"{label}: device process {pid} is named: {procs.get(pid)}")
    check(sorted(e["args"]["api"] for e in dev) == sorted(QUEUED),
          f"{label}: one device slice per queued command: {sorted(e['args']['api'] for e in dev)}")

    # flows: each start has exactly one end with its id; the start lies in the call that queued the command, the end
    # at the start of its device slice, which lies after the call's start
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {}
    for e in events:
        if e["ph"] == "f":
            check(e["id"] not in ends, f"{label}: one flow end per id ({e['id']})")
            ends[e["id"]] = e
    check(set(starts) == set(ends), f"{label}: flow ids pair up: starts {sorted(starts)} ends {sorted(ends)}")
    check(len(starts) == len(QUEUED), f"{label}: {len(QUEUED)} flows ({len(starts)})")
    for fid, s in starts.items():
        f = ends.get(fid)
        if not f:
            continue
        call = [e for e in by_thread.get(s["tid"], []) if e["ts"] <= s["ts"] <= e["ts"] + e["dur"]]
        if not check(call, f"{label}: flow {fid} starts inside a call"):
            continue
        call = max(call, key=lambda e: e["ts"])  # the innermost
        slices = [e for e in dev if (e["pid"], e["tid"]) == (f["pid"], f["tid"]) and e["ts"] == f["ts"]]
        if not check(len(slices) == 1, f"{label}: flow {fid} ends at one device slice"):
            continue
        d = slices[0]
        check(d["args"]["api"] == call["name"], f"{label}: flow {fid} joins {call['name']} to its command")
        err = d["args"]["clock_err_us"]
        check(isinstance(err, (int, float)) and err >= 0, f"{label}: the clock alignment's error is stated ({err} us)")
        check(d["ts"] >= call["ts"] - err - 0.002,
              f"{label}: {d['name']} starts at {d['ts']}, after {call['name']} started ({call['ts']}, +-{err})")
    end = max(e["ts"] + e["dur"] for e in api)
    for d in dev:
        check(0 <= d["ts"] and d["ts"] + d["dur"] <= end + d["args"]["clock_err_us"] + 0.002,
              f"{label}: {d['name']} lies inside the trace")
    return events


def main():
    case, sample = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.json")
        if case in ("host", "opencl", "cuda"):
            p = run_sample(sample, case, trace)
            if p.returncode == 77:
                print(p.stdout.strip())
                return 77
            if not check(p.returncode == 0, f"trace_sample {case} exits 0 ({p.returncode}): {p.stderr.strip()}"):
                return 1
            with open(trace) as fp:
                doc = json.load(fp)
            events = check_structure(doc, case)
            print(f"{case}: {len(events or [])} records checked")
        elif case == "ring":
            p = run_sample(sample, "host", trace)
            check(p.returncode == 0, f"trace_sample with a large buffer exits 0: {p.stderr.strip()}")
            with open(trace) as fp:
                big = json.load(fp)
            small_trace = os.path.join(tmp, "small.json")
            p = run_sample(sample, "host", small_trace, {"HCL_TRACE_EVENTS": "8"})
            check(p.returncode == 0, f"trace_sample with HCL_TRACE_EVENTS=8 exits 0: {p.stderr.strip()}")
            with open(small_trace) as fp:
                small = json.load(fp)  # valid JSON after many writes
            other = small.get("otherData", {})
            n = len(small["traceEvents"])
            check(other.get("capacity") == 8, f"ring: capacity 8 ({other.get('capacity')})")
            check(other.get("events") == n, f"ring: otherData.events {other.get('events')} == records {n}")
            check(other.get("flushes", 0) >= n // 8, f"ring: written out at least every 8 records "
                  f"({other.get('flushes')} writes for {n})")
            # the same records as with a large buffer, plus a slice for each time the full buffer was written out
            writes = [e for e in small["traceEvents"] if e.get("cat") == "trace"]
            check(writes and all(e["name"] == "hcl_trace_write" and e["args"]["records"] == 8 for e in writes),
                  f"ring: each write of the full buffer is a slice ({len(writes)})")
            check(not [e for e in big["traceEvents"] if e.get("cat") == "trace"], "ring: no write slice unless full")
            kinds = lambda d: sorted((e["ph"], e["name"]) for e in d["traceEvents"] if e.get("cat") != "trace")
            check(kinds(small) == kinds(big), "ring: the same records as with a large buffer")
            check_structure(small, "host")
            # a bad HCL_TRACE_EVENTS: a warning, the default, a trace all the same
            p = run_sample(sample, "host", small_trace, {"HCL_TRACE_EVENTS": "lots"})
            check(p.returncode == 0 and "HCL_TRACE_EVENTS" in p.stderr, f"ring: HCL_TRACE_EVENTS=lots warns: "
                  f"{p.stderr.strip()}")
            with open(small_trace) as fp:
                check(json.load(fp)["otherData"]["capacity"] == 16384, "ring: HCL_TRACE_EVENTS=lots: the default")
            # an HCL_TRACE that cannot be written: a message, the program runs untraced
            bad = os.path.join(tmp, "no-such-folder", "t.json")
            p = run_sample(sample, "host", bad)
            check(p.returncode == 0 and "HCL_TRACE" in p.stderr and "cannot write" in p.stderr,
                  f"ring: an unwritable HCL_TRACE is reported: {p.returncode} {p.stderr.strip()}")
            print(f"ring: {n} records in {other.get('flushes')} writes")
        elif case == "names":
            # names that are not UTF-8 (a selector and a kernel name, both calls failing): the file is still UTF-8
            # JSON (RFC 8259), each ill-formed sequence one U+FFFD, a well-formed one kept as it is
            p = run_sample(sample, "host", trace, mode=("names",))
            if not check(p.returncode == 0, f"trace_sample host names exits 0 ({p.returncode}): {p.stderr.strip()}"):
                return 1
            with open(trace, "rb") as fp:
                raw = fp.read()
            try:
                doc = json.loads(raw.decode("utf-8"))
            except ValueError as e:  # UnicodeDecodeError is a ValueError
                check(False, f"names: the trace is UTF-8 JSON: {e}")
                return 1
            args = [e.get("args", {}) for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] == "api"]
            selectors = [a.get("selector") for a in args if a.get("status") == "HCL_ERROR_UNKNOWN_BACKEND"]
            check(selectors == ["op\ufffd"], f"names: the selector as op U+FFFD ({selectors})")
            kernels = [a.get("kernel") for a in args if "kernel" in a and a.get("status") != "HCL_SUCCESS"]
            want = "k\u00e9\ufffd\ufffd|\ufffd\ufffd\ufffd|\ufffd\ufffd\ufffd\ufffd|\ufffd"
            check(kernels == [want], f"names: the kernel name with each ill-formed part replaced ({kernels!r})")
            check_structure(doc, "host")
            print(f"names: {len(doc['traceEvents'])} records checked")
        elif case == "threads":
            # 4 threads at once with a small buffer (many writes under contention): one track per thread, each
            # with its calls nested, one queue track per thread, every flow paired, every command timed
            p = run_sample(sample, "host", trace, {"HCL_TRACE_EVENTS": "64"}, ("threads", "4"))
            if not check(p.returncode == 0, f"trace_sample host threads 4 exits 0: {p.stderr.strip()}"):
                return 1
            with open(trace) as fp:
                doc = json.load(fp)
            events = doc["traceEvents"]
            check(doc["otherData"]["events"] == len(events), "threads: every record written")
            check(doc["otherData"]["commands_untimed"] == 0, "threads: every command timed")
            workers = {e["tid"] for e in events if e["ph"] == "X" and e["name"] == "hcl_queue_create"}
            check(len(workers) == 4, f"threads: queues created on 4 thread tracks ({workers})")
            dev = [e for e in events if e["ph"] == "X" and e["cat"] == "device"]
            check(len({(e["pid"], e["tid"]) for e in dev}) == 4, "threads: 4 queue tracks")
            check(len(dev) == 4 * 17, f"threads: 17 commands per thread ({len(dev)})")
            starts = sorted(e["id"] for e in events if e["ph"] == "s")
            ends = sorted(e["id"] for e in events if e["ph"] == "f")
            check(starts == ends and len(starts) == len(dev), "threads: flows pair up")
            by_thread = {}
            for e in events:
                if e["ph"] == "X" and e["cat"] == "api":
                    by_thread.setdefault(e["tid"], []).append(e)
            for tid, slices in by_thread.items():
                slices.sort(key=lambda e: e["ts"])
                for a, b in zip(slices, slices[1:]):
                    check(b["ts"] >= a["ts"] + a["dur"], f"threads: calls on thread {tid} do not overlap")
            print(f"threads: {len(events)} records checked")
        elif case == "mt":
            # trace_threads DIR (sys.argv[2] is trace_threads here): threads launching on the host backend while
            # traces start and stop (from the main thread and from others) and threads exit mid-trace; a small
            # per-thread buffer (HCL_TRACE_EVENTS=50), so the threads' buffers are written out under contention
            env = {k: v for k, v in os.environ.items() if k != "HCL_TRACE"}
            env["HCL_TRACE_EVENTS"] = "50"
            p = subprocess.run([sample, tmp], env=env, capture_output=True, text=True, timeout=400)
            if not check(p.returncode == 0, f"trace_threads exits 0 ({p.returncode}): {p.stderr.strip()[-2000:]}"):
                return 1
            want = int(p.stdout.split("exact_launches")[1].split()[0])
            with open(os.path.join(tmp, "exact.json")) as fp:
                doc = json.load(fp)
            api, dev = check_threaded(doc, "mt exact")
            launches = [e for e in api if e["name"] == "hcl_kernel_launch"]
            check(len(launches) == want, f"mt exact: {want} launches traced ({len(launches)})")
            check(all(e["args"]["status"] == "HCL_SUCCESS" and e["args"]["kernel"] == "touch" for e in launches),
                  "mt exact: each launch's status and kernel name")
            check(len([e for e in dev if e["args"]["api"] == "hcl_kernel_launch"]) == want,
                  f"mt exact: {want} launch device slices")
            check(len({e["tid"] for e in launches}) == 4, "mt exact: launches on 4 thread tracks")
            check(len({(e["pid"], e["tid"]) for e in dev}) == 4 + 3, "mt exact: 7 queue tracks (worker 0's, two of each other worker)")
            check(doc["otherData"]["capacity"] == 50 and doc["otherData"]["flushes"] > 10,
                  f"mt exact: written out many times: {doc['otherData']}")
            rounds = int(p.stdout.split("restart_rounds")[1].split()[0])
            total = 0
            for r in range(rounds):
                with open(os.path.join(tmp, f"restart-{r}.json")) as fp:
                    doc = json.load(fp)
                api, dev = check_threaded(doc, f"mt restart {r}")
                n = len([e for e in api if e["name"] == "hcl_kernel_launch"])
                check(n >= 10, f"mt restart {r}: the short-lived thread's 10 launches at least ({n})")
                total += n
            print(f"mt: {want} launches in one trace, {total} in {rounds} restarted traces")
        elif case == "bench":
            # bench --trace FILE (sys.argv[2] is bench here): the trace of a short host run; a bad path and a second
            # trace (HCL_TRACE set too) stop bench with status 2 before any work
            bench = sample
            env = {k: v for k, v in os.environ.items() if k not in ("HCL_TRACE", "HCL_TRACE_EVENTS")}
            args = [bench, "--device", "host", "--quick", "--kernels", "vecadd", "--types", "f32", "--scale", "0.01",
                    "--no-baselines", "--no-progress"]
            p = subprocess.run(args + ["--trace", trace], env=env, capture_output=True, text=True, timeout=300)
            if not check(p.returncode == 0, f"bench --trace exits 0 ({p.returncode}): {p.stderr.strip()[-500:]}"):
                return 1
            with open(trace) as fp:
                doc = json.load(fp)
            events = doc["traceEvents"]
            check(doc["otherData"]["events"] == len(events) and doc["otherData"]["commands_untimed"] == 0,
                  f"bench: every record written and every command timed: {doc['otherData']}")
            api = [e for e in events if e["ph"] == "X" and e["cat"] == "api"]
            dev = [e for e in events if e["ph"] == "X" and e["cat"] == "device"]
            check(any(e["name"] == "hcl_vecadd" for e in api), "bench: the trace has hcl_vecadd calls")
            check(any(e["name"] == "vecadd" for e in dev), "bench: the trace has vecadd device slices")
            check(any(e["name"] == "hcl_kernel_launch" for e in api), "bench: the trace has the launch measurement")
            starts = sorted(e["id"] for e in events if e["ph"] == "s")
            ends = sorted(e["id"] for e in events if e["ph"] == "f")
            check(starts == ends and len(starts) == len(dev), "bench: flows pair up, one per device slice")
            bad = os.path.join(tmp, "no-such-folder", "t.json")
            p = subprocess.run(args + ["--trace", bad], env=env, capture_output=True, text=True, timeout=60)
            check(p.returncode == 2 and "--trace" in p.stderr, f"bench: --trace into a missing folder exits 2: "
                  f"{p.returncode} {p.stderr.strip()}")
            p = subprocess.run(args + ["--trace", trace], env=dict(env, HCL_TRACE=os.path.join(tmp, "other.json")),
                               capture_output=True, text=True, timeout=60)
            check(p.returncode == 2 and "already" in p.stderr, f"bench: --trace with HCL_TRACE set exits 2: "
                  f"{p.returncode} {p.stderr.strip()}")
            print(f"bench: {len(events)} records checked")
        else:
            print(f"unknown case {case}")
            return 2
    print("FAILED: %d checks" % len(failures) if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
