#!/bin/sh
# bench/bind-agree.sh [DIR|FILE...]: does `abifloor bind --bind-now` agree
# with the real loader on every ELF file under the arguments (default
# /usr)? The loader is asked about each file as a user would:
#   programs of this machine:  LD_TRACE_LOADED_OBJECTS=1 LD_BIND_NOW=1 LD_WARN=1 ld.so FILE
#   libraries:                 ldd -r FILE
# The loader refuses a file when it exits non-zero or prints "not found",
# "undefined symbol", or "version ... not found"; bind, when the file dies at
# start, has PLT relocations of type NONE, or DT_RELR its root's loader
# ignores. Two classes are told apart as documented (README, bind): a
# plugin (no DT_SONAME), whose undefined symbols are its host's, and a
# library whose dependencies only its host's RUNPATH reaches ("found only
# via its host"): ldd, loading it alone, says "undefined symbol" and "not
# found" there. Prints the agreement, every disagreement, and the load
# average. ABIFLOOR: a binary to use instead of this tree's.
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- /usr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${ABIFLOOR:-}" ]; then
	CGO_ENABLED=0 go build -o "$tmp/abifloor" ./cmd/abifloor
	ABIFLOOR=$tmp/abifloor
fi
"$ABIFLOOR" bind --bind-now --format json "$@" >"$tmp/bind.json" 2>/dev/null || true
exec python3 - "$tmp/bind.json" <<'PY'
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

files = json.load(open(sys.argv[1]))["files"]
ldso = "/lib64/ld-linux-x86-64.so.2"
env = dict(os.environ, LD_TRACE_LOADED_OBJECTS="1", LD_BIND_NOW="1", LD_WARN="1")

def refused(out, code):
    return code != 0 or "not found" in out or "undefined symbol" in out

def ask(f):
    p = f["path"]
    if f.get("kind") in ("executable", "pie-executable") and f.get("arch") == "x86_64":
        r = subprocess.run([ldso, p], env=env, capture_output=True, text=True, errors="replace")
    else:
        r = subprocess.run(["ldd", "-r", p], capture_output=True, text=True, errors="replace")
    out = r.stdout + r.stderr
    if "not a dynamic executable" in out:
        return f, None, out  # ldd cannot ask (a loader itself): not counted
    return f, refused(out, r.returncode), out

todo = [f for f in files if not f.get("error") and f.get("kind") in ("executable", "pie-executable", "shared-library")
        and f.get("arch") in ("x86_64", "i386")]
agree, plugin, viahost, unasked, differ = 0, 0, 0, 0, []
with ThreadPoolExecutor(max_workers=2) as ex:
    for f, loader_refuses, out in ex.map(ask, todo):
        if loader_refuses is None:
            unasked += 1
            continue
        bind_refuses = bool(f.get("dies_at_start") or f.get("plt_none") or f.get("relr_ignored"))
        if bind_refuses == loader_refuses:
            agree += 1
        elif f.get("plugin"):
            plugin += 1
        elif f.get("via_host"):
            viahost += 1
        else:
            differ.append((f["path"], bind_refuses, loader_refuses, out.strip().splitlines()[-1:] or [""]))
n = len(todo) - unasked
print(f"bind --bind-now agrees with the loader on {agree + plugin + viahost} of {n} files "
      f"({agree} alike, {plugin} plugins and {viahost} host-reached libraries as documented); "
      f"{len(differ)} disagree; {unasked} the loader cannot be asked about (ldd: not a dynamic executable)")
for p, b, l, last in differ:
    print(f"  DISAGREE {p}: bind refuses {b}, loader refuses {l}: {last[0][:200]}")
print("load:", " ".join(open("/proc/loadavg").read().split()[:3]))
sys.exit(1 if differ else 0)
PY
