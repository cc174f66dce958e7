"""The least a fresh process costs on this machine: a Python parent forks a child that exits at once and waits for it.

CPU of the parent and its children per process (getrusage), in rounds. `--ballast-mib` grows the parent's heap first,
as BFCL's prepared parent is larger than a bare interpreter. libc's fork, as the multi-turn worker forks
(docs/bfcl.md, Isolation). Run with `python3 -S` for the bare interpreter.
"""

import argparse
import ctypes
import os
import resource

parser = argparse.ArgumentParser()
parser.add_argument("--processes", type=int, default=400)
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--ballast-mib", type=float, default=0)
args = parser.parse_args()

libc = ctypes.CDLL(None, use_errno=True)
# Small strings, as a parent's Python objects are: each is its own allocation with a reference count.
ballast = [str(i) * 3 for i in range(int(args.ballast_mib * 1024 * 1024 / 64))]


def cpu_s():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


for _ in range(args.rounds):
    start = cpu_s()
    for _ in range(args.processes):
        pid = libc.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    per = (cpu_s() - start) / args.processes * 1000
    print(f"resident {rss_mib():.1f} MiB: fork, exit and wait {per:.3f} CPU-ms a process")
