#!/usr/bin/env python3
"""Another model scored on the natives an evaluation already timed
(docs/BENCHMARKS.md, "Zen 3: ..., the core's resources"):

  python3 bench/palmed_rescore.py [--perpi PERPI] [--apart F] MODEL.json EVAL.csv...

EVAL.csv is `perpi palmed eval -o DIR`'s DIR/eval.csv. Each of its kernels
is predicted with `perpi palmed predict -m MODEL.json` (the prediction
perpi makes, not a copy of it) and scored against the CSV's native_ipc
column as `palmed eval` scores (palmed/eval.c): the weighted RMS of the
relative IPC error over the kernels the model covers whole, Kendall's tau
of the covered kernels with ties counted as eval_kendall_tau counts them,
and the covered share of the weight. One row per CSV.

What it is for: comparing models built from one database (other
--resources, --training...) on the same natives, without timing them
again: on a host whose noise moves by the minute, natives timed anew
differ by more than the models do. Scored against the model that ran the
evaluation, it gives back the evaluation's palmed row.

With --with MODEL2 (repeatable), each kernel's prediction is the mean of
the models' cycles (the harmonic mean of their IPCs), covered when every
model covers it: several builds together (docs/BENCHMARKS.md, "builds
together").
"""
import argparse
import csv
import math
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor


def predict(perpi, model, kernel):
    """IPC, or NaN when the model does not cover every instruction."""
    out = subprocess.run([perpi, "palmed", "predict", "-m", model, kernel],
                         capture_output=True, text=True, check=False).stdout
    m = re.search(r"^IPC:\s+([0-9.]+) \((\d+) of the (\d+)", out, re.M)
    if not m or m.group(2) != m.group(3):
        return math.nan
    return float(m.group(1))


def predict_mean(perpi, models, kernel):
    """The IPC of the models' mean cycles, or NaN when one does not cover
    the kernel."""
    ipcs = [predict(perpi, m, kernel) for m in models]
    if any(math.isnan(x) or x <= 0 for x in ipcs):
        return math.nan
    return len(ipcs) / sum(1 / x for x in ipcs)


def order(x, y):
    d = x - y
    if abs(d) <= 1e-9 * max(abs(x), abs(y), 1):
        return 0
    return 1 if d > 0 else -1


def kendall_tau(a, b):
    conc = disc = ties_a = ties_b = 0
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            sa, sb = order(a[i], a[j]), order(b[i], b[j])
            if sa == 0 and sb == 0:
                continue
            if sa == 0:
                ties_a += 1
            elif sb == 0:
                ties_b += 1
            elif sa == sb:
                conc += 1
            else:
                disc += 1
    den = math.sqrt((conc + disc + ties_a) * (conc + disc + ties_b))
    return (conc - disc) / den if den else math.nan


def kendall_tau_apart(pred, native, apart):
    """Kendall's tau over the pairs whose natives differ by more than
    `apart` of the larger: the pairs a timing separates beyond its noise
    (two timings of the runs' blocks on the Zen 4 differ by 0.6% RMS)."""
    conc = disc = 0
    for i in range(len(pred)):
        for j in range(i + 1, len(pred)):
            if abs(native[i] - native[j]) <= apart * max(native[i], native[j]):
                continue
            sp = order(pred[i], pred[j])
            if sp == 0:
                continue
            if sp == order(native[i], native[j]):
                conc += 1
            else:
                disc += 1
    return (conc - disc) / (conc + disc) if conc + disc else math.nan


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--perpi", default="./perpi")
    ap.add_argument("model")
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--match", metavar="REGEX",
                    help="only the kernels whose spec matches (e.g. 'M[0-9]+X' for "
                    "those with indexed memory forms)")
    ap.add_argument("--with", dest="also", metavar="MODEL2", action="append", default=[],
                    help="predict with the mean cycles of MODEL and MODEL2 (repeatable)")
    ap.add_argument("--apart", metavar="FRACTION", type=float,
                    help="also Kendall's tau over the pairs whose natives differ by "
                    "more than FRACTION (e.g. 0.01): those the timing separates")
    a = ap.parse_args()
    if a.apart is None:
        print("| eval.csv | kernels | coverage | RMS IPC error | Kendall tau |")
        print("|---|---|---|---|---|")
    else:
        print("| eval.csv | kernels | coverage | RMS IPC error | Kendall tau | "
              "tau, natives over %g%% apart |" % (100 * a.apart))
        print("|---|---|---|---|---|---|")
    for path in a.csv:
        with open(path, newline="") as f:
            rows = [r for r in csv.DictReader(f)
                    if not a.match or re.search(a.match, r["kernel"])]
        with ThreadPoolExecutor(4) as ex:
            preds = list(ex.map(
                lambda r: predict_mean(a.perpi, [a.model] + a.also, r["kernel"]), rows))
        sq = covered = total = 0.0
        pa, na = [], []
        for r, p in zip(rows, preds):
            w = float(r.get("weight") or 1)
            n = float(r["native_ipc"])
            total += w
            if math.isnan(p):
                continue
            sq += w * ((p - n) / n) ** 2
            covered += w
            pa.append(p)
            na.append(n)
        rms = math.sqrt(sq / covered) if covered else math.nan
        extra = "" if a.apart is None else " %.3f |" % kendall_tau_apart(pa, na, a.apart)
        print("| %s | %d | %.1f%% | %.2f%% | %.3f |%s" % (
            path, len(rows), 100 * covered / total if total else 0, 100 * rms,
            kendall_tau(pa, na), extra))


if __name__ == "__main__":
    main()
