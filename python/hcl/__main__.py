"""python -m hcl: the backends (available or not, with the reason) and the devices, like hcl-info."""

import sys

import hcl


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    print(f"HCL {hcl.version()} (Python package {hcl.__version__}, header {hcl.HEADER_VERSION})")
    print("Backends:")
    for b in hcl.backends():
        if b["available"]:
            state = f"available, {b['device_count']} device(s)"
            if b["version"]:
                state += f", {b['version']}"
        else:
            state = "unavailable: " + b["reason"]
        print(f"  {b['name']:<10} {state}")
        if b["module_path"] and b["available"]:
            print(f"  {'':<10} module {b['module_path']}")
    print("Devices:")
    backend_index = {}
    for d in hcl.devices():
        sel = f"{d['backend']}:{d['index']}"
        backend_index[sel] = True
        mem = d["global_mem_bytes"] / 2**30
        print(f"  {sel:<12} {d['type']:<4} {d['name']} ({d['vendor']}), {d['compute_units']} CUs, {mem:.1f} GiB, "
              f"arch {d['arch'] or '?'}, native {'/'.join(d['native_types'])}")
    if "-v" in argv or "--engines" in argv:
        print("Communicator engines:")
        for e in hcl.comm_engines():
            state = "available" if e["available"] else "unavailable: " + e["reason"]
            print(f"  {e['name']:<8} ({e['backends']}) {state}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
