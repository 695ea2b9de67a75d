#!/usr/bin/env python3
"""Time commands run in turn, one run of each per round, in a random order.

    bench/interleave.py ROUNDS NAME=COMMAND NAME=COMMAND ...

The first command is the base: each other one is given over it, as the
ratio of the medians and as the median of the rounds' own ratios (each
round's commands ran within a few tenths of a second of each other, so a
machine that drifts moves them together).

Why not hyperfine blocks: on a shared VM a block of 15 runs of one command
drifts by several percent against the next block, and a command run right
after another (abifloor after abifloor) is slower than after a different
one, so a fixed order favours some commands. A random order per round
spreads both evenly.

COMMAND is split as a shell would split words (no expansion). Alternatives
separated by " ||| " are taken in turn, round by round: copies of one
binary, since two copies of the same bytes can differ by a few tenths of a
millisecond by where the page cache put them.

Standard library only; prints to stdout.
"""

import os
import random
import shlex
import statistics
import subprocess
import sys
import time


def main(argv):
    if len(argv) < 3 or not argv[1].isdigit():
        sys.exit(__doc__)
    rounds = int(argv[1])
    names, alts = [], []
    for spec in argv[2:]:
        name, sep, cmd = spec.partition("=")
        if not sep or not cmd:
            sys.exit("interleave.py: want NAME=COMMAND, got %r" % spec)
        names.append(name)
        alts.append([shlex.split(c) for c in cmd.split(" ||| ")])
    times = [[] for _ in names]
    rnd = random.Random(1)
    null = open(os.devnull, "w")
    for r in range(rounds):
        order = list(range(len(names)))
        rnd.shuffle(order)
        for i in order:
            cmd = alts[i][r % len(alts[i])]
            t = time.perf_counter()
            p = subprocess.run(cmd, stdout=null, stderr=null)
            times[i].append(time.perf_counter() - t)
            if p.returncode != 0:
                sys.exit("interleave.py: %s exited %d: %s" % (names[i], p.returncode, shlex.join(cmd)))
    base = statistics.median(times[0])
    print("  %-44s %8.2f ms" % (names[0], base * 1e3))
    for name, ts in zip(names[1:], times[1:]):
        med = statistics.median(ts)
        per_round = statistics.median(t / b for t, b in zip(ts, times[0]))
        print("  %-44s %8.2f ms  %+6.1f%% (+%.2f ms); median of the rounds' ratios %+.1f%%"
              % (name, med * 1e3, (med / base - 1) * 100, (med - base) * 1e3, (per_round - 1) * 100))
    print("  %d rounds, load %s" % (rounds, " ".join(open("/proc/loadavg").read().split()[:3])))


if __name__ == "__main__":
    main(sys.argv)
