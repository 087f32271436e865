#!/usr/bin/env python3
"""ctest tools-hcl-info-<case>: hcl-info's options, its JSON against the schema of docs/hcl-info.md, and the device
properties of the host and the first OpenCL device; ctest hip-fake-info: those of the HIP driver on its stand-in
runtime; ctest opencl-select-fake-info: the device a backend's name alone opens, on a fake OpenCL with a CPU first;
ctest tools-hcl-info-telemetry: each device's telemetry, MIG instances and --monitor on the stand-in NVML and ROCm
SMI (the environment names them and the test driver "telefake"), and with the libraries missing.

Usage: test_hcl_info.py options|json|host|opencl|hipfake|openclfake|peer|telemetry path/to/hcl-info
Exit status: 0 passed, 1 failed (each failure printed), 77 skipped (the reason printed).
"""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_DOC = os.path.join(HERE, "..", "docs", "hcl-info.md")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
    return ok


def run(info, *args, env_extra=None):
    env = dict(os.environ)
    env.pop("HCL_BACKEND", None)
    env.pop("HCL_DEVICE", None)
    env.update(env_extra or {})
    p = subprocess.run([info, *args], capture_output=True, text=True, env=env, timeout=100)
    return p.returncode, p.stdout, p.stderr


def load_json(info, *args):
    rc, out, err = run(info, "--json", *args)
    if not check(rc == 0, f"hcl-info --json {' '.join(args)} exits 0 (got {rc}; stderr: {err.strip()[:300]})"):
        return None
    try:
        return json.loads(out)
    except json.JSONDecodeError as e:
        check(False, f"hcl-info --json {' '.join(args)} prints valid JSON ({e}); output:\n{out[:2000]}")
        return None


def devices_of(info):
    doc = load_json(info)
    return doc["devices"] if doc else []


# ---------------------------------------------------------------------------------------------------- options
def case_options(info):
    selectors = [d["selector"] for d in devices_of(info)]
    check("host:0" in selectors, f"the device list holds host:0 ({selectors})")

    for args in (["--help"], ["-h"]):
        rc, out, err = run(info, *args)
        check(rc == 0 and out.startswith("usage: hcl-info") and "--device=SELECTOR" in out and "--json" in out,
              f"{' '.join(args)}: exit 0 and the usage on stdout (rc {rc})")

    for args in (["--version"], ["-V"]):
        rc, out, err = run(info, *args)
        m = re.match(r"hcl-info (\d+\.\d+\.\d+) \(built against HCL \1\)\nlibhcl (\d+\.\d+\.\d+) \((\d+)\.(\d+)\.(\d+)\)\n$",
                     out)
        check(rc == 0 and m is not None and m.group(2) == ".".join(m.group(3, 4, 5)),
              f"{' '.join(args)}: exit 0, hcl-info's and the library's version ({out.strip()!r})")

    for args in (["-l"], ["--list"]):
        rc, out, err = run(info, *args)
        lines = out.splitlines()
        cols = [l.split(None, 3) for l in lines]
        check(rc == 0 and [c[0] for c in cols] == selectors and all(len(c) == 4 for c in cols),
              f"{' '.join(args)}: one line per device, selector first, 4 columns ({lines})")
        host = [c for c in cols if c[0] == "host:0"]
        check(bool(host) and host[0][1] == "CPU" and host[0][2] != "" and host[0][3].strip() != "",
              f"{' '.join(args)}: host:0 is a CPU with an architecture and a name ({host})")

    # -d: the short form, the long form with = and with a separate value, a backend alone, a comma list
    for args, want in ((["-d", "host"], "host:0"), (["--device=host:0"], "host:0"), (["--device", "host:0"], "host:0"),
                       (["-dhost"], "host:0"), (["--device=nosuch,host"], None), (["-d", "host,opencl"], "host:0")):
        rc, out, err = run(info, *args)
        if want is None:  # an unknown name in a comma list is an error, as in HCL_BACKEND
            check(rc == 2 and out == "" and "nosuch" in err, f"{' '.join(args)}: exit 2, nothing on stdout ({err.strip()[:200]})")
            continue
        blocks = re.findall(r"^  \[(\d+)\] (\S+)  ", out, re.M)
        check(rc == 0 and "Devices (1):" in out and [b[1] for b in blocks] == [want] and "Backends" not in out
              and "default device" not in out, f"{' '.join(args)}: exit 0, only {want} ({blocks})")
    rc, out, err = run(info, "-l", "--device=host")
    check(rc == 0 and [l.split()[0] for l in out.splitlines()] == ["host:0"], f"-l --device=host: one line, host:0 ({out!r})")
    doc = load_json(info, "-d", "host:0")
    check(doc is not None and [d["selector"] for d in doc["devices"]] == ["host:0"] and doc["default_device"] is None,
          "--json -d host:0: only host:0, default_device null")
    if "opencl:0" in selectors:
        rc, out, err = run(info, "--device=opencl:0")
        check(rc == 0 and re.search(r"^  \[\d+\] opencl:0  ", out, re.M) is not None, "--device=opencl:0: the OpenCL device")

    # usage errors: exit 2, nothing on stdout (found before any work), a message that says what and how
    for args, want in (
        (["--bogus"], "unknown option '--bogus'"),
        (["--bogus=1"], "unknown option '--bogus=1'"),
        (["-x"], "unknown option '-x'"),
        (["-d"], "needs a value"),
        (["--device"], "needs a value"),
        (["--list=3"], "option '--list=3' takes no value"),
        (["extra"], "unexpected argument 'extra'"),
        (["-l", "--json"], "choose one of --list and --json"),
    ):
        rc, out, err = run(info, *args)
        check(rc == 2 and out == "" and want in err and "usage: hcl-info" in err,
              f"{' '.join(args)}: exit 2, nothing on stdout, '{want}' and the usage on stderr (rc {rc}: {err.strip()[:160]!r})")
    for sel, why in (("nosuch", "HCL_ERROR_UNKNOWN_BACKEND"), ("host:7", "HCL_ERROR_DEVICE_NOT_FOUND"),
                     ("host:x", "HCL_ERROR_"), ("", "empty"), ("levelzero", "HCL_ERROR_")):
        if sel == "levelzero" and any(s.startswith("levelzero:") for s in selectors):
            continue  # only a selector that opens nothing here
        rc, out, err = run(info, f"--device={sel}")
        check(rc == 2 and out == "" and why in err and "backend:N" in err and "Backends: " in err
              and "host:0" in err, f"--device={sel}: exit 2, the reason ({why}), the valid forms, backends and devices "
              f"(rc {rc}: {err.strip()[:300]!r})")


# ---------------------------------------------------------------------------------------------------- json
def schema_from_doc():
    """{path: type} from the tables of docs/hcl-info.md: rows "| `path` | type | meaning |"."""
    keys = {}
    with open(SCHEMA_DOC, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\| `([a-z_]+(?:\[\])?(?:\.[a-z_0-9]+)?)` \| ([a-z\[\]0-9|\\]+) \|", line)
            if m:
                keys[m.group(1)] = m.group(2).replace("\\|", "|")
    return keys


def type_ok(value, t):
    def is_int(v):
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0
    if t == "string":
        return isinstance(value, str)
    if t == "integer":
        return is_int(value)
    if t == "boolean":
        return isinstance(value, bool)
    if t == "integer[3]":
        return isinstance(value, list) and len(value) == 3 and all(is_int(v) for v in value)
    if t == "string[]":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if t == "boolean[][]":
        return isinstance(value, list) and all(isinstance(r, list) and len(r) == len(value)
                                               and all(isinstance(v, bool) for v in r) for r in value)
    if t == "array":
        return isinstance(value, list) and all(isinstance(v, dict) for v in value)
    if t == "object":
        return isinstance(value, dict)
    if t == "object|null":
        return value is None or isinstance(value, dict)
    if t == "string|null":
        return value is None or isinstance(value, str)
    return False


def check_against(doc, schema, label):
    top = {k: t for k, t in schema.items() if "." not in k}
    ok = True
    for key, t in top.items():
        ok &= check(key in doc and type_ok(doc[key], t), f"{label}: {key} is {t} ({type(doc.get(key)).__name__})")
    ok &= check(set(doc) == set(top), f"{label}: top-level keys are the documented ones (extra {set(doc) - set(top)})")
    for parent in ("backends[]", "devices[]", "peer_access[]", "comm_engines[]", "default_device"):
        sub = {k.split(".", 1)[1]: t for k, t in schema.items() if k.startswith(parent + ".")}
        items = doc.get(parent.rstrip("[]"))
        if parent.endswith("[]"):
            items = items or []
        else:
            items = [items] if items else []
        for i, item in enumerate(items):
            bad = [f"{k} ({type(item.get(k)).__name__}, want {t})" for k, t in sub.items()
                   if k not in item or not type_ok(item[k], t)]
            extra = set(item) - set(sub)
            ok &= check(not bad and not extra, f"{label}: {parent} #{i}: every documented key of its type"
                        + (f"; wrong or missing: {bad}" if bad else "") + (f"; undocumented: {extra}" if extra else ""))
    return ok


def case_json(info):
    schema = schema_from_doc()
    check(len(schema) >= 45 and schema.get("devices[].subgroup_size") == "integer"
          and schema.get("default_device") == "object|null", f"docs/hcl-info.md's tables give the schema ({len(schema)} keys)")
    doc = load_json(info)
    if doc is None:
        return
    check(doc.get("schema") == "hcl-info/1", f"schema is hcl-info/1 ({doc.get('schema')!r})")
    check_against(doc, schema, "--json")
    rc, out, err = run(info, "--version")
    check(doc.get("hcl_version", "?") in out, f"hcl_version {doc.get('hcl_version')!r} is the library's (--version)")
    names = [b["name"] for b in doc["backends"]]
    check(names[:6] == ["cuda", "hip", "levelzero", "opencl", "vulkan", "host"], f"backends in the library's order ({names})")
    avail = sum(b["device_count"] for b in doc["backends"] if b["available"])
    check(len(doc["devices"]) == avail and [d["index"] for d in doc["devices"]] == list(range(avail)),
          f"devices: one per device of the available backends, indexed 0..{avail - 1}")
    for b in doc["backends"]:
        check(b["available"] == (b["reason"] == ""), f"backend {b['name']}: a reason exactly when unavailable")
        own = [d["selector"] for d in doc["devices"] if d["backend"] == b["name"]]
        check(b["opens"] in own if own else b["opens"] is None,
              f"backend {b['name']}: opens {b['opens']!r}, one of its devices ({own}), null without devices")
    engines = [e["name"] for e in doc["comm_engines"]]
    check(engines == ["nccl", "rccl", "mpi", "staged"], f"comm_engines in the library's order ({engines})")
    for e in doc["comm_engines"]:
        check(e["available"] == (e["reason"] == ""), f"engine {e['name']}: a reason exactly when unavailable")
    staged = [e for e in doc["comm_engines"] if e["name"] == "staged"]
    check(staged and staged[0]["available"], "the staged engine (no library) is available")
    for d in doc["devices"]:
        check(d["selector"] == f"{d['backend']}:{d['backend_index']}", f"{d['selector']}: selector is backend:index")
    check(doc["default_device"] is not None and doc["default_device_error"] == "",
          f"a default device opens here ({doc['default_device']}, {doc['default_device_error']!r})")
    # with -d: the same schema, one device
    doc1 = load_json(info, "--device=host")
    if doc1 is not None:
        check_against(doc1, schema, "--json --device=host")
        check(len(doc1["devices"]) == 1 and doc1["devices"][0]["selector"] == "host:0", "--json --device=host: host:0 only")
    # the text output shows the same devices, in the same order
    rc, out, err = run(info)
    blocks = re.findall(r"^  \[(\d+)\] (\S+)  ", out, re.M)
    check(rc == 0 and [b[1] for b in blocks] == [d["selector"] for d in doc["devices"]],
          f"the text output lists the JSON's devices ({blocks})")


# ---------------------------------------------------------------------------------------------------- devices
def device(info, backend):
    for d in devices_of(info):
        if d["backend"] == backend:
            return d
    return None


def text_block(info, selector):
    rc, out, err = run(info, "-d", selector)
    return out if rc == 0 else ""


def case_host(info):
    d = device(info, "host")
    if not check(d is not None, "there is a host device"):
        return
    print(json.dumps(d, indent=2))
    check(d["subgroup_size"] == 1, "host: sub-group size 1 (a work-group runs as a loop)")
    check(d["fp64"] is True, "host: fp64")
    check(d["fp16"] == ("f16" in d["native_types"]), "host: fp16 exactly when f16 is native")
    check(d["max_work_item_sizes"] == [d["max_work_group_size"]] * 3 and d["max_work_group_size"] > 0,
          f"host: max work-item sizes {d['max_work_item_sizes']} are the work-group limit in every dimension")
    check(d["max_grid_size"] == [2**32 - 1] * 3, f"host: max grid {d['max_grid_size']}")
    check(d["memory_clock_mhz"] == 0 and d["memory_bus_width_bits"] == 0 and d["peak_memory_bandwidth"] == 0,
          "host: memory clock, bus width and peak bandwidth unknown (0)")
    getconf = shutil.which("getconf")
    l2 = subprocess.run([getconf, "LEVEL2_CACHE_SIZE"], capture_output=True, text=True).stdout.strip() if getconf else ""
    if l2.isdigit() and int(l2) > 0:
        check(d["l2_cache_bytes"] == int(l2), f"host: L2 {d['l2_cache_bytes']} is getconf LEVEL2_CACHE_SIZE {l2}")
    else:
        check(d["l2_cache_bytes"] >= 0, f"host: L2 {d['l2_cache_bytes']} (getconf gives no L2 size here: not compared)")
    text = text_block(info, "host")
    for line in ("sub-group size:      1 lane", "fp16 / fp64:         %s / yes" % ("yes" if d["fp16"] else "no"),
                 "max work-item sizes: %d x %d x %d" % tuple(d["max_work_item_sizes"]),
                 "max grid size:       4294967295 x 4294967295 x 4294967295 (work-groups)",
                 "memory clock:        unknown", "peak bandwidth:      unknown"):
        check(line in text, f"host: the text output shows '{line}'")


def clinfo_raw():
    """{name: value text} of the first OpenCL device clinfo --raw lists, or None without clinfo."""
    exe = shutil.which("clinfo")
    if not exe:
        return None
    out = subprocess.run([exe, "--raw"], capture_output=True, text=True, timeout=60).stdout
    props, first = {}, None
    for line in out.splitlines():
        m = re.match(r"^\[([^\]]+)\]\s+(CL_DEVICE_\w+)\s+(.*)$", line)
        if not m:
            continue
        first = first or m.group(1)
        if m.group(1) == first and m.group(2) not in props:
            props[m.group(2)] = m.group(3).strip()
    return props


def case_opencl(info):
    d = device(info, "opencl")
    if d is None:
        print("skipped: no OpenCL device on this machine (hcl-info lists none)")
        sys.exit(77)
    print(json.dumps(d, indent=2))
    raw = clinfo_raw()
    if not raw or raw.get("CL_DEVICE_NAME") != d["name"]:
        print(f"skipped: clinfo --raw does not list {d['name']!r} first, nothing to compare with")
        sys.exit(77)
    sizes = [int(x) for x in raw.get("CL_DEVICE_MAX_WORK_ITEM_SIZES", "").split()][:3]
    check(d["max_work_item_sizes"] == sizes, f"opencl: max work-item sizes {d['max_work_item_sizes']} are clinfo's {sizes}")
    cache = int(raw.get("CL_DEVICE_GLOBAL_MEM_CACHE_SIZE", "0"))
    check(d["l2_cache_bytes"] == cache, f"opencl: L2 {d['l2_cache_bytes']} is CL_DEVICE_GLOBAL_MEM_CACHE_SIZE {cache}")
    fp64 = raw.get("CL_DEVICE_DOUBLE_FP_CONFIG", "0") not in ("", "0")
    check(d["fp64"] == fp64, f"opencl: fp64 {d['fp64']} as CL_DEVICE_DOUBLE_FP_CONFIG says ({raw.get('CL_DEVICE_DOUBLE_FP_CONFIG')!r})")
    if d["type"] == "CPU":
        check(d["subgroup_size"] == 1, "opencl: a CPU device's sub-group size is 1")
    check(d["max_grid_size"] == [0, 0, 0], "opencl: no grid limit stated (0)")
    check(d["memory_clock_mhz"] == 0 and d["peak_memory_bandwidth"] == 0, "opencl: memory clock and peak bandwidth unknown")
    text = text_block(info, d["selector"])
    check("max grid size:       not stated by the runtime (work-groups)" in text,
          "opencl: the text output says the grid limit is not stated")


def case_hipfake(info):
    """The HIP driver on drivers/hip/test_fakehip.c (HCL_HIP_LIBRARY set by ctest hip-fake-info): hip:0 is gfx90a with
    its memory figures (1600 MHz, 4096 bits, 8 MiB L2), hip:1 gfx1030 whose stand-in does not give them."""
    if "fakehip" not in os.environ.get("HCL_HIP_LIBRARY", ""):
        check(False, "HCL_HIP_LIBRARY must name the fake HIP runtime (libhcl-test-fakehip.so)")
        return
    rc, out, err = run(info, "-l")
    lines = [l.split(None, 3) for l in out.splitlines() if l.startswith("hip:")]
    check(rc == 0 and [l[:3] for l in lines] == [["hip:0", "GPU", "gfx90a"], ["hip:1", "GPU", "gfx1030"]],
          f"-l: hip:0 gfx90a and hip:1 gfx1030 GPUs ({lines})")
    want = {
        "hip:0": dict(subgroup_size=64, fp16=True, fp64=True, max_work_item_sizes=[1024] * 3,
                      max_grid_size=[2147483647, 65536, 65536], memory_clock_mhz=1600, memory_bus_width_bits=4096,
                      peak_memory_bandwidth=2 * 1600 * 10**6 * 4096 // 8, l2_cache_bytes=8 << 20, arch="gfx90a",
                      matrix_unit="matrix cores (MFMA)", clock_mhz=1700),
        "hip:1": dict(subgroup_size=32, fp16=True, fp64=True, max_work_item_sizes=[1024] * 3,
                      max_grid_size=[2147483647, 65536, 65536], memory_clock_mhz=0, memory_bus_width_bits=0,
                      peak_memory_bandwidth=0, l2_cache_bytes=0, arch="gfx1030", matrix_unit="none"),
    }
    for sel, fields in want.items():
        doc = load_json(info, f"--device={sel}")
        if doc is None or not check(len(doc["devices"]) == 1, f"--json --device={sel}: one device"):
            continue
        d = doc["devices"][0]
        bad = {k: (d.get(k), v) for k, v in fields.items() if d.get(k) != v}
        check(not bad, f"{sel}: the stand-in's properties (wrong: {bad})")
    text = text_block(info, "hip:0")
    for line in ("sub-group size:      64 lanes", "memory clock:        1600 MHz", "memory bus width:    4096 bits",
                 "peak bandwidth:      1638.4 GB/s", "L2 cache:            8.00 MiB (8388608 bytes)",
                 "max grid size:       2147483647 x 65536 x 65536 (work-groups)", "fp16 / fp64:         yes / yes"):
        check(line in text, f"hip:0: the text output shows '{line}'")
    text = text_block(info, "hip:1")
    for line in ("sub-group size:      32 lanes", "memory clock:        unknown", "peak bandwidth:      unknown",
                 "L2 cache:            unknown"):
        check(line in text, f"hip:1: the text output shows '{line}'")


def case_openclfake(info):
    """The OpenCL driver on drivers/opencl/test_fake_opencl.c with a CPU before two GPUs (ctest opencl-select-fake-info
    sets HCL_OPENCL_LIBRARY and HCL_FAKE_CL_TYPES=cpu,gpu,gpu), as PoCL before NVIDIA on the H200 machines: hcl-info
    says that "opencl" alone opens opencl:1, the first GPU (text and --json), and so do -d opencl and HCL_BACKEND=opencl;
    opencl:0, HCL_BACKEND=opencl:0 and HCL_DEVICE=0 open the CPU; host opens host:0."""
    if "fake-opencl" not in os.environ.get("HCL_OPENCL_LIBRARY", "") or \
            os.environ.get("HCL_FAKE_CL_TYPES") != "cpu,gpu,gpu":
        check(False, "HCL_OPENCL_LIBRARY must name the fake OpenCL library and HCL_FAKE_CL_TYPES be cpu,gpu,gpu")
        return
    rc, out, err = run(info, "-l")
    lines = [l.split(None, 3)[:2] for l in out.splitlines() if l.startswith("opencl:")]
    check(rc == 0 and lines == [["opencl:0", "CPU"], ["opencl:1", "GPU"], ["opencl:2", "GPU"]],
          f"-l: opencl:0 a CPU, opencl:1 and opencl:2 GPUs ({lines})")
    rc, out, err = run(info)
    m = re.search(r"^  opencl +available, 3 devices\n(?:   +\S.*\n)*?   +opens: +(.*)$", out, re.M)
    check(rc == 0 and m is not None and m.group(1) == "opencl:1 (GPU) when named without an index",
          f"text: under Backends, opencl opens opencl:1, its first GPU ({m.group(1) if m else None!r})")
    check("opens:   host:0 (CPU) when named without an index" in out, "text: host opens host:0")
    doc = load_json(info)
    if doc is not None:
        opens = {b["name"]: b["opens"] for b in doc["backends"]}
        check(opens.get("opencl") == "opencl:1" and opens.get("host") == "host:0",
              f"--json: backends[].opens: opencl:1 for opencl, host:0 for host ({opens})")
    for sel, want in (("opencl", "opencl:1"), ("opencl:0", "opencl:0"), ("opencl,host", "opencl:1")):
        doc1 = load_json(info, f"--device={sel}")
        got = [d["selector"] for d in doc1["devices"]] if doc1 else None
        check(got == [want], f"--json --device={sel}: {want} ({got})")
    for env, want in (({"HCL_BACKEND": "opencl"}, "opencl:1"), ({"HCL_BACKEND": "opencl", "HCL_DEVICE": "0"}, "opencl:0"),
                      ({"HCL_BACKEND": "opencl:0"}, "opencl:0"), ({"HCL_BACKEND": "opencl", "HCL_DEVICE": "2"}, "opencl:2")):
        rc, out, err = run(info, env_extra=env)
        m = re.search(r"^default device: (\S+) ", out, re.M)
        check(rc == 0 and m is not None and m.group(1) == want,
              f"{' '.join(k + '=' + v for k, v in env.items())}: the default device is {want} ({m.group(1) if m else out[-300:]!r})")


def case_peer(info):
    """With two OpenCL devices (POCL_DEVICES="pthread pthread"): the peer-access matrix in the JSON and the text."""
    doc = load_json(info) or {}
    opencl = [d for d in doc.get("devices", []) if d.get("backend") == "opencl"]
    if len(opencl) < 2:
        print(f"skipped: {len(opencl)} OpenCL device(s), the case needs 2 (PoCL: POCL_DEVICES=\"pthread pthread\")")
        sys.exit(77)
    entries = [p for p in doc.get("peer_access", []) if p.get("backend") == "opencl"]
    check(len(entries) == 1, f"--json: one peer_access entry for opencl ({len(entries)})")
    if entries:
        e = entries[0]
        n = len(opencl)
        check(e.get("selectors") == [f"opencl:{i}" for i in range(n)], f"--json: its selectors ({e.get('selectors')})")
        want = [[i == j for j in range(n)] for i in range(n)]
        check(e.get("direct") == want, f"--json: direct is the identity (OpenCL stages its copies): {e.get('direct')}")
        check(e.get("error") == "", f"--json: no error ({e.get('error')!r})")
    for p in doc.get("peer_access", []):
        check(len(p.get("selectors", [])) > 1, f"--json: {p.get('backend')} has more than one device")
    doc1 = load_json(info, "-d", "opencl:1") or {}
    check(doc1.get("peer_access") == [], "--json -d: peer_access is empty")
    out = run(info)[1]
    check("Peer access (hcl_device_peer_access" in out, "the text output has the Peer access section")
    check("Communication engines (4):" in out and "  staged     available" in out,
          "the text output lists the communication engines, staged available")
    rows = [l.split() for l in out.splitlines() if l.startswith("  opencl:")]
    check(["opencl:0", "self", "staged"] == rows[0][:3] if rows else False, f"text: opencl:0's row ({rows[:1]})")
    check(["opencl:1", "staged", "self"] == rows[1][:3] if len(rows) > 1 else False, f"text: opencl:1's row ({rows[1:2]})")


# ---------------------------------------------------------------------------------------------------- telemetry
def case_telemetry(info):
    doc = load_json(info)
    if not doc:
        return
    by_sel = {d["selector"]: d for d in doc["devices"]}
    nv, amd, intel = by_sel.get("telefake:0"), by_sel.get("telefake:1"), by_sel.get("telefake:2")
    if not check(nv and amd and intel, f"the test driver's GPUs are listed ({sorted(by_sel)})"):
        return
    for d in doc["devices"]:
        t = d["telemetry"]
        names = set(t["fields"])
        check(len(names) == 13 and all(set(v) == {"value", "reason"} for v in t["fields"].values()),
              f"{d['selector']}: 13 telemetry fields, each a value and a reason")
        check(all((v["value"] is None) == (v["reason"] != "") for v in t["fields"].values()),
              f"{d['selector']}: every field a number, or null with the reason")
    f = nv["telemetry"]["fields"]
    check(nv["telemetry"]["source"] == "nvml" and f["power_w"]["value"] == 123.456 and f["clock_sm_mhz"]["value"] == 1980
          and f["clock_memory_mhz"]["value"] == 2619 and f["memory_total_bytes"]["value"] == 85899345920
          and f["throttle_reasons"]["value"] == 12 and nv["telemetry"]["throttle_text"] == "power cap, thermal",
          f"NVIDIA GPU: NVML's values ({nv['telemetry']})")
    check("Not Supported" in f["link_generation"]["reason"], f"an unsupported field says why ({f['link_generation']})")
    mig = nv["mig"]
    check(mig["known"] and mig["enabled"] and [m["gpu_instance"] for m in mig["instances"]] == [9, 2]
          and mig["instances"][0]["name"].endswith("MIG 1g.10gb") and mig["instances"][1]["multiprocessors"] == 60,
          f"NVIDIA GPU: MIG on, two instances ({mig})")
    check(amd["telemetry"]["source"] == "rocm-smi" and amd["telemetry"]["fields"]["power_w"]["value"] == 250
          and not amd["mig"]["known"], f"AMD GPU: ROCm SMI's values, no MIG ({amd['telemetry']['fields']['power_w']})")
    check(intel["telemetry"]["source"] == "" and "Sysman" in intel["telemetry"]["fields"]["energy_j"]["reason"],
          f"Intel GPU: unknown with the reason ({intel['telemetry']['detail']})")
    rc, out, err = run(info, "-d", "telefake:0")
    check(rc == 0 and re.search(r"power +123\.456 W", out) and re.search(r"throttle +power cap, thermal \(0xc\)", out)
          and "GPU instance 2 / compute instance 0: NVIDIA H100 80GB HBM3 MIG 3g.40gb, 60 SMs, 3 slices" in out
          and "MIG mode:            enabled, 2 instances" in out, f"text: telemetry and MIG of telefake:0 ({out[-1500:]})")
    rc, out, err = run(info, "--monitor", "20", "--count", "3", "--json", "-d", "telefake:0")
    lines = [json.loads(x) for x in out.splitlines()] if rc == 0 else []
    check(len(lines) == 3 and all(x["schema"] == "hcl-info-monitor/1" and x["selector"] == "telefake:0" for x in lines)
          and [x["energy_j"] for x in lines] == [lines[0]["energy_j"] + k for k in range(3)]
          and lines[2]["time_s"] >= 0.035, f"--monitor 20 --count 3 --json: 3 lines, the counter advancing ({out[:600]})")
    # compare_smi.py on those lines beside a made-up nvidia-smi CSV of the same GPU: 2% more power, same clocks
    import datetime
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        mon, smi = os.path.join(tmp, "mon.jsonl"), os.path.join(tmp, "smi.csv")
        with open(mon, "w") as f:
            f.write(out)
        with open(smi, "w") as f:
            f.write("timestamp, uuid, power.draw [W], total_energy_consumption [mJ], clocks.sm [MHz], clocks.mem [MHz]\n")
            for x in lines:
                ts = datetime.datetime.fromtimestamp(x["unix_time"] + 0.005).strftime("%Y/%m/%d %H:%M:%S.%f")[:-3]
                f.write(f"{ts}, GPU-01234567-89ab-cdef-0123-456789abcdef, {x['power_w'] * 1.02:.2f} W, "
                        f"{x['energy_j'] * 1000:.0f}, {x['clock_sm_mhz']:.0f} MHz, {x['clock_memory_mhz']:.0f} MHz\n")
        p = subprocess.run([sys.executable, os.path.join(HERE, "compare_smi.py"), "--smi", smi, "--monitor", mon],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0 and "power: 3 of 3 readings within 5%" in p.stdout and "(median |diff| 1.96%)" in p.stdout
              and "SM equal in 3 of 3, memory equal in 3 of 3" in p.stdout,
              f"compare_smi.py beside a made-up nvidia-smi CSV ({p.stdout[-600:]}{p.stderr[-300:]})")
    rc, out, err = run(info, "--monitor=10", "-c", "2")
    rows = [x for x in out.splitlines() if x.startswith("  ")]
    check(rc == 0 and out.startswith("#") and len(rows) == 2 * len(doc["devices"])
          and any(re.search(r"telefake:0 +123\.5 +\d+\.0 +47 +1980 +2619 +87 +1024 SLOW$", r) for r in rows),
          f"--monitor=10 -c 2: a line per device per sample ({out[:800]})")
    for args, what in ((["--count", "2"], "--count goes with --monitor"), (["--monitor", "-l"], "choose one of"),
                       (["--monitor=0"], "1 to 3600000"), (["-m", "-c", "x"], "--count takes")):
        rc, out, err = run(info, *args)
        check(rc == 2 and what in err and out == "", f"hcl-info {' '.join(args)}: usage error ({err[:200]!r})")
    absent = {"HCL_NVML_LIBRARY": "/nonexistent/libnvidia-ml-hcl-test.so.1",
              "HCL_ROCM_SMI_LIBRARY": "/nonexistent/librocm_smi64-hcl-test.so"}
    rc, out, err = run(info, "--json", "-d", "telefake:0", env_extra=absent)
    try:
        t = json.loads(out)["devices"][0]["telemetry"] if rc == 0 else None
    except (json.JSONDecodeError, KeyError, IndexError):
        t = None
    check(t is not None and t["source"] == "" and all(v["value"] is None and "libnvidia-ml-hcl-test" in v["reason"]
                                                      for v in t["fields"].values()),
          f"without NVML: every field unknown with the library's name, exit 0 ({t and t['detail']})")
    rc, out, err = run(info, "--monitor", "5", "--count", "1", env_extra=absent)
    check(rc == 0 and re.search(r"telefake:0 +- +- ", out), f"without NVML: --monitor still runs ({out[:400]})")


def main():
    cases = {"options": case_options, "json": case_json, "host": case_host, "opencl": case_opencl,
             "hipfake": case_hipfake, "openclfake": case_openclfake, "peer": case_peer, "telemetry": case_telemetry}
    if len(sys.argv) != 3 or sys.argv[1] not in cases:
        print(__doc__)
        return 2
    cases[sys.argv[1]](sys.argv[2])
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
