#!/usr/bin/env python3
"""The tables of bench/eval-cycles.sh, from its outputs in OUTDIR:
eval.txt and eval/eval-cycles.csv (perpi eval cycles), and
PAPER-fp.json (perpi report --function kernel --only fp --json of the
PerPI paper's three kernels). Writes OUTDIR/benchmarks-rows.md (for
docs/BENCHMARKS.md, "Cycle prediction") and OUTDIR/table1.md (the README's
Table 1).

usage: eval-cycles-tables.py OUTDIR HOST CPU DATE SECONDS"""
import csv
import json
import os
import sys


def cell(pred, native):
    if pred in ("", "nan") or float(pred) != float(pred):
        return "-"
    p = float(pred)
    if native in ("", "nan") or float(native) != float(native) or float(native) <= 0:
        return "%.0f" % p
    return "%.0f (%+.1f%%)" % (p, 100 * (p - float(native)) / float(native))


def metrics(eval_txt):
    """The predictor lines perpi eval cycles printed, as they are."""
    rows, on = [], False
    for line in open(eval_txt):
        if line.startswith("predictor"):
            on = True
            continue
        if on and not line.strip():
            break  # the metrics end at the blank line before the timing check
        if on:
            f = line.split()
            # predictor  RMS  tau  coverage (covered of n)
            rows.append((f[0], f[1], f[2], " ".join(f[3:])))
    return rows


def agreement(eval_txt):
    """perpi measure against the kernels' own rdtsc, as printed, or None."""
    for line in open(eval_txt):
        if line.startswith("perpi measure against"):
            return line.strip()
    return None


def benchmarks_rows(out, host, cpu, date, seconds):
    rows = list(csv.DictReader(open(os.path.join(out, "eval", "eval-cycles.csv"))))
    w = []
    w.append("Cycle prediction on %s (%s), %s: `sh bench/eval-cycles.sh` (%s s in all);"
             % (host, cpu, date, seconds))
    w.append("cycles of one call (native: `perpi measure`'s median call, the fastest run), predicted"
             " error in parentheses; ! marks a kernel whose simulated L1 misses more"
             " than 15%, left out of perpi's figures; ~ a native figure taken on a core"
             " perpi measure found slowed after every run (another thread or VM on it).")
    w.append("")
    w.append("| kernel | instructions | native | perpi | bound | llvm-mca | L1 miss | mispredicts |")
    w.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        flag = "!" if r["flagged"] == "1" else ""
        w.append("| %s | %s | %s | %s | %s | %s | %.1f%%%s | %s |" % (
            r["kernel"], r["instructions"],
            "-" if r["native"] == "nan" else "%.0f%s" % (
                float(r["native"]), "~" if r.get("slowed") == "1" else ""),
            cell(r["perpi"], r["native"]), cell(r["bound"], r["native"]),
            cell(r["llvm-mca"], r["native"]), 100 * float(r["l1_miss_rate"]), flag,
            r["mispredicts_per_call"]))
    w.append("")
    w.append("| predictor | RMS error | Kendall tau | coverage |")
    w.append("| --- | ---: | ---: | ---: |")
    for m in metrics(os.path.join(out, "eval.txt")):
        w.append("| %s | %s | %s | %s |" % m)
    check = agreement(os.path.join(out, "eval.txt"))
    if check:
        w.append("")
        w.append(check.replace("perpi measure", "`perpi measure`", 1) + ".")
    slowed = sum(r.get("slowed") == "1" for r in rows)
    if slowed:
        w.append("%d kernel%s marked ~." % (slowed, "" if slowed == 1 else "s"))
    open(os.path.join(out, "benchmarks-rows.md"), "w").write("\n".join(w) + "\n")


def table1(out, host, date):
    rows = {r["kernel"]: r for r in csv.DictReader(
        open(os.path.join(out, "eval", "eval-cycles.csv")))}
    names = [("paper_horner", "Horner"), ("paper_comphorner", "CompHorner (compensated)"),
             ("paper_ddhorner", "DDHorner (double-double)")]
    figs = []
    for k, label in names:
        j = json.load(open(os.path.join(out, "%s-fp.json" % k)))
        calls = j["instances"] or 1
        t = j["totals"]
        r = rows.get(k + "-O2", {})
        figs.append((label, t["instructions"] / calls, t["ilp"],
                     float(r.get("perpi", "nan")), float(r.get("native", "nan"))))
    h = figs[0]
    w = ["The PerPI paper's Table 1 on %s, %s (`sh bench/eval-cycles.sh`: the kernels"
         " bench/kernels/paper_*.c at -O2, degree 25; floating-point instructions and"
         " their ILP per call from `perpi report --function kernel --only fp`, cycles of"
         " one call from `perpi eval cycles`):" % (host, date), "",
         "| algorithm | flops | ILP (fp) | predicted cycles | measured cycles"
         " | flops / Horner | predicted / Horner | measured / Horner |",
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for f in figs:
        w.append("| %s | %.0f | %.2f | %.0f | %.0f | %.1f | %.2f | %.2f |" % (
            f[0], f[1], f[2], f[3], f[4], f[1] / h[1], f[3] / h[3], f[4] / h[4]))
    open(os.path.join(out, "table1.md"), "w").write("\n".join(w) + "\n")


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    out, host, cpu, date, seconds = sys.argv[1:]
    benchmarks_rows(out, host, cpu, date, seconds)
    table1(out, host, date)


main()
