#!/usr/bin/env python3
"""A model's error on the short kernels it was built from
(docs/BENCHMARKS.md, "The Zen 3, night"):

  python3 bench/palmed_pairs.py [--perpi PERPI] [--forms N] [--vector] MODEL.json

Reads MODEL.json.measurements (every kernel the build measured, with its
cycles), keeps the kernels of at most N distinct forms (default 2: the
forms alone and the pairs) without vector registers unless --vector, and
predicts each with `perpi palmed predict -m MODEL.json` (the prediction
perpi makes). Prints the RMS relative cycle error, the mean signed error,
and the 25 kernels predicted fastest against their cycles: pairs that
share a unit the model does not give them both show there.
"""
import argparse
import math
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor


def predict(perpi, model, kernel):
    out = subprocess.run([perpi, "palmed", "predict", "-m", model, kernel],
                         capture_output=True, text=True, check=False).stdout
    m = re.search(r"^cycles/iter:\s+([0-9.]+)", out, re.M)
    return float(m.group(1)) if m else math.nan


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--perpi", default="./perpi")
    ap.add_argument("--forms", type=int, default=2)
    ap.add_argument("--vector", action="store_true")
    ap.add_argument("model")
    a = ap.parse_args()
    rows = []
    with open(a.model + ".measurements") as f:
        for line in f:
            if line.startswith("#"):
                continue
            cycles, kernel = line.rstrip("\n").split("\t")
            if len(kernel.split()) > a.forms or (not a.vector and "MM" in kernel):
                continue
            rows.append((float(cycles), kernel))
    with ThreadPoolExecutor(4) as ex:
        preds = list(ex.map(lambda r: predict(a.perpi, a.model, r[1]), rows))
    res = sorted(((p - c) / c, c, p, k) for (c, k), p in zip(rows, preds)
                 if not math.isnan(p) and c > 0)
    if not res:
        print("no kernels")
        return
    rms = math.sqrt(sum(e * e for e, *_ in res) / len(res))
    print("%d kernels: RMS cycle error %.2f%%, mean signed %.2f%%" %
          (len(res), 100 * rms, 100 * sum(e for e, *_ in res) / len(res)))
    for e, c, p, k in res[:25]:
        print("%6.1f%%  measured %.3f  predicted %.3f  %s" % (100 * e, c, p, k))


if __name__ == "__main__":
    main()
