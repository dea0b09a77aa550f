#!/usr/bin/env python3
"""ncu_summary.py: the kernels' time of a run under Nsight Compute, summed by kernel.

Reads the CSV that `ncu --metrics gpu__time_duration.sum --csv --print-units base PROGRAM` prints
(the program's own output may come first: everything before ncu's header row is skipped) and
prints the total and the kernels that took the most, each with its launches and share.
Usage: bench/ncu_summary.py FILE.csv [--top N]
"""
import argparse
import collections
import csv
import re
import sys


def short(name):
    """A kernel's name without its argument list and namespaces, at most 70 characters."""
    name = re.sub(r"\(.*$", "", name)
    name = re.sub(r"^.*::", "", name) if "<" not in name else name
    return name[:70]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv")
    p.add_argument("--top", type=int, default=15)
    args = p.parse_args()
    with open(args.csv, newline="", errors="replace") as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        sys.exit(f"{args.csv}: no ncu CSV header (\"ID\",...) found")
    rows = list(csv.reader(lines[start:]))
    head = rows[0]
    try:
        k_name, m_name, m_unit, m_value = (head.index(c) for c in
                                           ("Kernel Name", "Metric Name", "Metric Unit",
                                            "Metric Value"))
    except ValueError:
        sys.exit(f"{args.csv}: unexpected columns {head}")
    total_ns = collections.Counter()
    launches = collections.Counter()
    for r in rows[1:]:
        if len(r) != len(head) or r[m_name] != "gpu__time_duration.sum":
            continue
        scale = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "msecond": 1e6}.get(r[m_unit], 1.0)
        ns = float(r[m_value].replace(",", "")) * scale
        total_ns[short(r[k_name])] += ns
        launches[short(r[k_name])] += 1
    all_ns = sum(total_ns.values())
    print(f"== {args.csv}: {sum(launches.values())} launches, {all_ns / 1e6:.2f} ms of kernels")
    for name, ns in total_ns.most_common(args.top):
        print(f"{ns / 1e6:9.3f} ms {100 * ns / all_ns:5.1f}% {launches[name]:6d}x  {name}")


if __name__ == "__main__":
    main()
