#!/usr/bin/env python3
"""Where a model's error on an evaluation comes from
(docs/BENCHMARKS.md, "The Zen 3, night"):

  python3 bench/palmed_worst.py [--perpi PERPI] [-n N] [--harness] MODEL.json EVAL.csv

EVAL.csv is `perpi palmed eval -o DIR`'s DIR/eval.csv. Each kernel is
predicted with `perpi palmed predict -m MODEL.json` and scored against
native_ipc (weighted as palmed/eval.c weighs); prints the RMS IPC error
against the natives and against the training harness's timings of the
same kernels (harness_ipc, where the harness timed them), the N kernels
with the largest share of the squared error (native, predicted, harness
IPC), and the forms by the share of the kernels they are in. With
--harness the kernels and forms are ranked by the error against the
harness's timings instead (kernels it did not time left out): the model's
own share, the harness's difference from the natives aside.
"""
import argparse
import csv
import math
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor


def predict(perpi, model, kernel):
    out = subprocess.run([perpi, "palmed", "predict", "-m", model, kernel],
                         capture_output=True, text=True, check=False).stdout
    m = re.search(r"^IPC:\s+([0-9.]+) \((\d+) of the (\d+)", out, re.M)
    return float(m.group(1)) if m and m.group(2) == m.group(3) else math.nan


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--perpi", default="./perpi")
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("--harness", action="store_true",
                    help="rank by the error against the harness's timings")
    ap.add_argument("model")
    ap.add_argument("csv")
    a = ap.parse_args()
    with open(a.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    with ThreadPoolExecutor(4) as ex:
        preds = list(ex.map(lambda r: predict(a.perpi, a.model, r["kernel"]), rows))
    sqn = wn = sqh = wh = 0.0
    items, byform = [], {}
    for r, p in zip(rows, preds):
        if math.isnan(p):
            continue
        w = float(r.get("weight") or 1)
        n = float(r["native_ipc"])
        h = float(r["harness_ipc"]) if r.get("harness_ipc") else math.nan
        en = w * ((p - n) / n) ** 2
        eh = w * ((p - h) / h) ** 2 if not math.isnan(h) else 0.0
        sqn += en
        wn += w
        if not math.isnan(h):
            sqh += eh
            wh += w
        e = eh if a.harness else en
        items.append((e, r["kernel"], n, p, h))
        for form in {t.split("^")[0] for t in r["kernel"].split()}:
            byform[form] = byform.get(form, 0) + e
    if not wn:
        print("no kernel covered")
        return
    print("RMS IPC error %.2f%% against the natives, %.2f%% against the harness "
          "(%.0f%% of the weight timed there)" %
          (100 * math.sqrt(sqn / wn), 100 * math.sqrt(sqh / wh) if wh else math.nan,
           100 * wh / wn))
    total = sqh if a.harness else sqn
    if not total:
        print("no error to rank")
        return
    for e, k, n, p, h in sorted(items, reverse=True)[:a.n]:
        print("%5.1f%%  native %.2f  predicted %.2f  harness %.2f  %s" %
              (100 * e / total, n, p, h, k))
    print("forms by the share of the squared error of the kernels they are in:")
    for form, e in sorted(byform.items(), key=lambda x: -x[1])[:a.n]:
        print("  %5.1f%%  %s" % (100 * e / total, form))


if __name__ == "__main__":
    main()
