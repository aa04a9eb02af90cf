#!/usr/bin/env python3
"""Where a Palmed model's error comes from (docs/BENCHMARKS.md, "Where the
mixes' error comes from"), from files a build and an evaluation leave:

  python3 bench/palmed_diagnose.py MODEL.json [EVAL.csv...]

MODEL.json is `perpi palmed build`'s model; MODEL.json.measurements, its
measurement log, beside it. Prints, recomputing the model's cycles (the
heaviest resource load) for every logged kernel:

1. kernels of core forms only (the forms some resource is the bottleneck
   of), by distinct forms and size: the relative error of the model;
2. the mapping's probes (core forms and exactly one other form) whose
   base (the same kernel without the other form) was measured too: the
   model's error on the base, and on what the form adds to it;
3. for each EVAL.csv (`perpi palmed eval -o DIR`'s DIR/eval.csv): the
   RMS IPC error and the median by distinct forms of the held-out kernels.

Relative errors are (model - measured) / measured in cycles for 1 and 2
(positive: predicted slower), in IPC for 3 (negative: predicted slower).
"""
import collections
import csv
import json
import math
import re
import sys


def parse(spec):
    out = {}
    for term in spec.split():
        m = re.match(r"(.*?)(\^(\d+))?$", term)
        out[m.group(1)] = int(m.group(3) or 1)
    return out


def spell(kernel):
    return " ".join(f if c == 1 else "%s^%d" % (f, c) for f, c in sorted(kernel.items()))


def summary(errors):
    errors = sorted(errors)
    n = len(errors)
    rms = math.sqrt(sum(e * e for e in errors) / n)
    return "%6d kernels: RMS %5.1f%%, median %+5.1f%%, 10%%-90%% %+5.1f%%..%+5.1f%%" % (
        n, 100 * rms, 100 * errors[n // 2], 100 * errors[n // 10], 100 * errors[9 * n // 10])


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    model = json.load(open(sys.argv[1]))
    forms = {f["form"]: f for f in model["forms"]}
    core = {r["bottleneck_of"] for r in model["resources"] if "bottleneck_of" in r}

    def cycles(kernel):
        load = collections.defaultdict(float)
        for f, c in kernel.items():
            for r, u in forms[f]["usage"].items():
                load[r] += c * u
        return max(load.values()) if load else 0.0

    measured = {}
    for line in open(sys.argv[1] + ".measurements"):
        if not line.startswith("#"):
            c, spec = line.rstrip("\n").split("\t")
            measured[spec] = float(c)

    bins = collections.defaultdict(list)
    base_err, added_err, bases = [], [], collections.Counter()
    for spec, c in measured.items():
        k = parse(spec)
        if any(f not in forms for f in k):
            continue
        others = [f for f in k if f not in core]
        if not others:
            n = sum(k.values())
            size = "<=12" if n <= 12 else "<=24" if n <= 24 else ">24"
            bins[(min(len(k), 10), size)].append((cycles(k) - c) / c)
        elif len(others) == 1 and len(k) > 1:
            base = {f: v for f, v in k.items() if f in core}
            cb = measured.get(spell(base))
            if cb is None:
                continue
            pb = cycles(base)
            base_err.append((pb - cb) / cb)
            added_err.append(((cycles(k) - pb) - (c - cb)) / c)
            bases[spell(base)] += 1
    print("1. kernels of core forms alone (distinct forms, instructions):")
    for key in sorted(bins):
        if len(bins[key]) >= 20:
            print("   %2d forms, %-4s %s" % (key[0], key[1], summary(bins[key])))
    if base_err:
        print("2. the mapping's probes, %d bases:" % len(bases))
        print("   the base alone:       ", summary(base_err))
        print("   what the form adds:   ", summary(added_err))
    for path in sys.argv[2:]:
        by = collections.defaultdict(list)
        for row in csv.DictReader(open(path)):
            k = parse(row["kernel"])
            if any(f not in forms for f in k):
                continue
            n = sum(k.values())
            native = float(row["native_ipc"])
            by[len(k)].append((n / cycles(k) - native) / native)
        print("3. %s (IPC):" % path)
        print("   all     ", summary([e for v in by.values() for e in v]))
        for d in sorted(by):
            if len(by[d]) >= 5:
                print("   %2d forms" % d, summary(by[d]))


if __name__ == "__main__":
    main()
