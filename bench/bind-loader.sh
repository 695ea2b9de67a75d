#!/bin/sh
# bench/bind-loader.sh [DIR|FILE...]: the CPU time of `abifloor bind` over
# every ELF file under the arguments (default /usr), beside the CPU time of
# asking the real loader about each of the same files directly:
#   programs:  LD_TRACE_LOADED_OBJECTS=1 LD_BIND_NOW=1 LD_WARN=1 ld.so FILE
#   libraries (and files of another machine): ldd -r FILE
# The loader is asked one file at a time, as a user would; abifloor gets
# the whole list in one run. Prints both CPU times (user+system of the
# processes, from getrusage), the ratio abifloor/loader, and the load
# average, and for reference ld.so asked about every file (libraries too)
# and abifloor walking the arguments itself. Needs python3; BIND_RUNS
# (default 3) runs of abifloor, the median kept; ABIFLOOR, a binary to
# measure instead of this tree's.
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- /usr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/abifloor" ./cmd/abifloor
ABIFLOOR=${ABIFLOOR:-$tmp/abifloor}
# The files are those the audit takes up without an error reading them.
"$ABIFLOOR" bind --format json "$@" >"$tmp/list.json" 2>/dev/null || true
exec python3 - "$tmp" "$ABIFLOOR" "${BIND_RUNS:-3}" "$@" <<'PY'
import json, os, resource, statistics, subprocess, sys, time

tmp, abifloor, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
ldso = "/lib64/ld-linux-x86-64.so.2"
files = json.load(open(os.path.join(tmp, "list.json")))["files"]
progs, libs = [], []
for f in files:
    if f.get("error"):
        continue
    kind, arch = f.get("kind"), f.get("arch")
    if kind in ("executable", "pie-executable") and arch == "x86_64":
        progs.append(f["path"])
    elif kind in ("executable", "pie-executable", "shared-library"):
        libs.append(f["path"])
every = progs + libs

def cpu(fn):
    """CPU seconds (user+system) of the child processes fn runs, and wall."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    fn()
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall

def loader():
    env = dict(os.environ, LD_TRACE_LOADED_OBJECTS="1", LD_BIND_NOW="1", LD_WARN="1")
    for p in progs:
        subprocess.run([ldso, p], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for p in libs:
        subprocess.run(["ldd", "-r", p], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def ldso_only():
    env = dict(os.environ, LD_TRACE_LOADED_OBJECTS="1", LD_BIND_NOW="1", LD_WARN="1")
    for p in every:
        subprocess.run([ldso, p], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def bind():
    subprocess.run([abifloor, "bind", "--format", "json", *every], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def bind_tree():
    subprocess.run([abifloor, "bind", "--format", "json", *sys.argv[4:]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

load0 = os.getloadavg()
print(f"{len(every)} ELF files under {' '.join(sys.argv[4:])}: {len(progs)} programs to ld.so, {len(libs)} to ldd -r")
lc, lw = cpu(loader)
results = sorted((cpu(bind) for _ in range(runs)), key=lambda r: r[0])
bc, bw = results[len(results) // 2]
# For reference: ld.so asked about the libraries too (no shell between),
# and abifloor walking the arguments itself (every file's head read).
oc, ow = cpu(ldso_only)
tc, tw = cpu(bind_tree)
load1 = os.getloadavg()
print(f"loader, one file at a time: {lc:7.2f} s CPU {lw:7.2f} s wall")
print(f"abifloor bind FILES:        {bc:7.2f} s CPU {bw:7.2f} s wall (median of {runs}: {', '.join(f'{r[0]:.2f}' for r in results)})")
print(f"ratio abifloor/loader:      {bc / lc:.2f}x CPU")
print(f"reference: ld.so for every file {oc:.2f} s CPU ({bc / oc:.2f}x); abifloor bind {' '.join(sys.argv[4:])}, walking: {tc:.2f} s CPU ({tc / lc:.2f}x, {tc / oc:.2f}x)")
print(f"load average: {load0[0]:.2f} before, {load1[0]:.2f} after ({os.cpu_count()} CPUs)")
PY
