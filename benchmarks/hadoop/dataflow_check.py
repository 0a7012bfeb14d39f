"""Check recorded runs of the 100-byte-record jobs against the map-side spill rules.

For every map attempt of the sort and selectivity jobs (fixed 100-byte map output records,
no combiner) compare the parsed spills with

* the spill-count formula ceil(records / floor(S / (w + 16))), S = (int)(B × spill%),
  B = io.sort.mb·2^20 rounded down to a multiple of 16, w = 100;
* the exact size of the first spill, ceil((S − 16) / (w + 16)) records, and of every spill
  (``simulate_spill_sizes`` of tests/validation/hadoop_expectations.py);

and the attempt's records and bytes with its MAP_OUTPUT_* counters. Prints one summary line
per check and the spills-per-map table by io.sort.mb and spill percent.

    python benchmarks/hadoop/dataflow_check.py benchmarks/results/runs-matrix.jsonl
"""

from __future__ import annotations

import math
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "mrtune.harness"))

from mrtune.readers.run_records import read_jsonl  # noqa: E402
from tests.harness.hadoop_expectations import merge_intermediate_records, simulate_spill_sizes  # noqa: E402

W = 100


def main(paths: list[str]) -> int:
    checks: Counter[str] = Counter()
    table: dict[tuple[int, float], set[tuple[int, ...]]] = defaultdict(set)
    smaller_later = 0
    one_reducer = 0
    for path in paths:
        for rec in read_jsonl(Path(path)):
            if not rec.success or rec.job not in ("sort", "selectivity"):
                continue
            conf = rec.effective_conf
            mb = int(conf.get("mapreduce.task.io.sort.mb", 100))
            pct = float(conf.get("mapreduce.map.sort.spill.percent", 0.80))
            soft = int(((mb << 20) // 16 * 16) * pct)
            spills = []
            for m in rec.map_attempts:
                n = m.counter("MAP_OUTPUT_RECORDS") or 0
                formula = math.ceil(n / (soft // (W + 16))) if n else 0
                checks["spill count = formula"] += m.num_spills == formula
                checks["attempts"] += 1
                if m.spills:
                    first = -(-(soft - 16) // (W + 16))
                    full = [s.records for s in m.spills[:-1]]
                    checks["first spill = ceil((S-16)/(w+16))"] += (
                        m.num_spills == 1 or m.spills[0].records == first
                    )
                    smaller_later += sum(r == first - 1 for r in full[1:])
                    sim = simulate_spill_sizes(n, mb, pct) if 0.5 <= pct else None
                    checks["every spill's records = simulate_spill_sizes"] += sim == [
                        s.records for s in m.spills
                    ]
                factor = int(conf.get("mapreduce.task.io.sort.factor", 10))
                if rec.num_reduces == 1 and m.spills:
                    sizes = [s.records or 0 for s in m.spills]
                    inter = merge_intermediate_records(sizes, factor)[1] if len(sizes) > 1 else 0
                    want = sum(sizes) + inter + (n if len(sizes) > 1 else 0)
                    checks["map SPILLED_RECORDS = spills + Merger simulation (1 reducer)"] += (
                        m.counter("SPILLED_RECORDS") == want
                    )
                    one_reducer += 1
                recs = sum(s.records or 0 for s in m.spills)
                byts = sum(s.bytes or 0 for s in m.spills)
                checks["spill records sum = MAP_OUTPUT_RECORDS"] += recs == n
                checks["spill bytes sum = MAP_OUTPUT_BYTES"] += byts == m.counter(
                    "MAP_OUTPUT_BYTES"
                )
                spills.append(m.num_spills)
            table[(mb, pct)].add(tuple(spills))
    total = checks.pop("attempts", 0)
    for name, ok in checks.items():
        denominator = one_reducer if "1 reducer" in name else total
        print(f"{name}: {ok}/{denominator} map attempts")
    print(f"later full spills one record smaller (equator alignment): {smaller_later}")
    print("io.sort.mb  spill%  spills per map (distinct patterns)")
    for (mb, pct), pats in sorted(table.items()):
        print(f"{mb:>10}  {pct:>6}  {sorted(pats)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
