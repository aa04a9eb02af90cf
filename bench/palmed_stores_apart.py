#!/usr/bin/env python3
"""Stores apart from the front end, offline, on a model file
(docs/BENCHMARKS.md, "The Zen 3, the next night"):

  python3 bench/palmed_stores_apart.py MODEL.json OUT.json [--push-only]

On the Zen 3 the core's resource that a NOP loads fully (R7 there: the
front end, with the address units in it) carries each store's cycles
alone: a store beside moves or NOPs is predicted at their sum where the
machine takes the longer (the dispatch width), while beside loads the
machine shares three address units. For every form that stores (its first
operand is memory, not cmp/test/bt/prefetch, or a push; by name: the
build does not have the forms' semantics there), this moves its usage of
the NOP's resource past a NOP's slot to a new resource of the stores (the
old value: a store alone and among stores as before), leaves the slot,
and raises its usage of the plain load's resource (MOV_GPR64_M64's top
one besides the NOP's) to the plain load's usage there (a third of a
cycle on the Zen 3: three address units). Score OUT.json with
bench/palmed_rescore.py. The build does the --push-only form of it, gated
by measured pairs, and gives the other stores the pushes' resource
besides (palmed/infer_polish.c, pushes_apart: docs/MODEL.md, "Pushes
apart from the front end"); every store moved, this script's default,
lost on three of four timings of the runs' blocks (docs/BENCHMARKS.md,
"The Zen 3, the third night").
"""
import argparse
import json
import re

NOT_STORES = ("CMP", "TEST", "BT", "PREFETCHT0", "PREFETCHT1", "PREFETCHT2", "PREFETCHNTA",
              "PREFETCHW", "NOP")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("--push-only", action="store_true")
    a = ap.parse_args()
    m = json.load(open(a.model))
    forms = {f["form"]: f for f in m["forms"]}
    nop = forms["NOP"]["usage"]
    front = max((r for r in nop if r != "width"), key=lambda r: nop[r])
    slot = nop[front]
    load = forms["MOV_GPR64_M64"]["usage"]
    lres = max((r for r in load if r not in ("width", front)), key=lambda r: load[r])
    m["resources"].append({"name": "STORES", "bottleneck_of": None})
    n = 0
    for f in m["forms"]:
        name = f["form"]
        if "." in name:  # LOCK., REP. forms
            continue
        mnemonic, ops = name.split("_")[0], name.split("_")[1:]
        push = mnemonic == "PUSH"
        store = push or (bool(ops) and re.match(r"M\d+X?$", ops[0]) is not None
                         and mnemonic not in NOT_STORES)
        if not store or (a.push_only and not push):
            continue
        u = f["usage"]
        if u.get(front, 0) <= slot:
            continue
        u["STORES"] = u[front]
        u[front] = slot
        u[lres] = max(u.get(lres, 0), min(f["cycles"], load[lres]))
        n += 1
    json.dump(m, open(a.out, "w"))
    print("%d forms: %s past %.3f to STORES, %s raised to %.3f" %
          (n, front, slot, lres, load[lres]))


if __name__ == "__main__":
    main()
