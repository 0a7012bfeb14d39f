"""Why postings' compressed map output changes with the number of reducers (issue 20).

pst-reduces-16-codec-lz4 stored 1.97% more bytes than the codec probe's LZ4 ratio (measured at
one reducer) gives. Hadoop's framing cannot account for that: ``BlockCompressorStream`` adds
8 bytes per block of at most 256 KiB − 1,044 B (``Lz4Codec``: ``io.compression.codec.lz4
.buffersize`` 256 KiB, overhead buffersize/255 + 16), one more partial block per segment at
16 reducers is ~30 blocks, and a block restart costs LZ4 a few bytes here. This study replays
the map side with Hadoop's own classes (``benchmarks/codec_order/CodecOrderStudy.java``: the
mapper's records, the calibration run's spill points, ``QuickSort`` by (partition, key),
the combiner's concatenation, ``Merger``'s two-segment merge, ``IFile.Writer`` with the codec)
and reports, per codec and number of reducers:

* ``emulated``: the materialized bytes of that replay (checked against every real run and the
  probe below, to the 0.01%);
* ``emulated_sorted_lists``: the same records with each combined list sorted, so their order
  no longer depends on the sort: what remains is the key density (a partition holds 1/R of
  the keys), which the partitions probe measures (``probe_parts``);
* ``measured``: real runs (``runs-postings.jsonl``, ``runs-postings-codec-reducers.jsonl``)
  and, at one reducer, the codec probe's final stage (``runs-codec-probe.jsonl``).

``QuickSort`` is not stable: the order a key's records leave the sort in depends on R, the
list-building combiner writes that order into the list, and LZ4 on those 4-byte line numbers
depends on it. Run from the repository root (Hadoop client jars fetched; about 3 minutes of
CPU)::

    python benchmarks/codec_order_study.py -o benchmarks/results/codec-order-study.json
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrtune.calibration.run_record import flat_counters  # noqa: E402
from mrtune.harness.datagen import ensure_input  # noqa: E402
from mrtune.harness.jars import find_jars  # noqa: E402
from mrtune.profiling.codecs import PROBE_GROUP, is_probe_run  # noqa: E402
from mrtune.readers.run_records import RunRecord, read_jsonl  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
SOURCE = Path(__file__).resolve().parent / "codec_order" / "CodecOrderStudy.java"
CODECS = {
    "Lz4Codec": [1, 2, 4, 8, 16, 32, 64],
    "SnappyCodec": [1, 16],
    "DefaultCodec": [1, 16],
}


def _runs() -> list[RunRecord]:
    files = [
        "runs-postings.jsonl",
        "runs-postings-codec-reducers.jsonl",
        "runs-codec-probe.jsonl",
        "runs-codec-probe-partitions.jsonl",
    ]
    return [r for f in files for r in read_jsonl(RESULTS / f) if r.job == "postings"]


def _measured(runs: list[RunRecord]) -> dict[str, dict[int, dict[str, float]]]:
    """codec → R → {measured, probe_parts}: real runs' bytes, the probes' stages."""
    out: dict[str, dict[int, dict[str, float]]] = {c: {} for c in CODECS}
    for r in runs:
        probe = r.counters.get(PROBE_GROUP) or {}
        if is_probe_run(r.settings):
            for codec in CODECS:
                for key, value in probe.items():
                    m = re.fullmatch(rf"(final|parts(\d+))\.{codec}\.COMPRESSED_BYTES", key)
                    if m:
                        what = "measured" if m.group(1) == "final" else "probe_parts"
                        out[codec].setdefault(int(m.group(2) or 1), {})[what] = float(value)
            continue
        codec = r.settings.get("mapreduce.map.output.compress.codec", "").rsplit(".", 1)[-1]
        if codec in CODECS:
            J = flat_counters(r.counters)
            out[codec].setdefault(r.num_reduces, {})["measured"] = J[
                "MAP_OUTPUT_MATERIALIZED_BYTES"
            ]
    return out


def _replay(runs: list[RunRecord], work: Path) -> dict[str, dict[int, dict[str, float]]]:
    """Compile the replay and run it for every codec, in Hadoop's order and sorted lists."""
    cal = next(r for r in runs if r.label == "pst-default")
    gen = cal.input.generator or {}
    folder, _ = ensure_input("text", float(gen["requested_mib"]), seed=int(cal.input.seed))
    first = cal.map_attempts[0]
    split_end = int(first.split_start) + int(first.split_length)
    spill0 = int(first.spills[0].records)
    cp = ":".join(str(p) for p in find_jars().classpath)
    subprocess.run(["javac", "-nowarn", "-cp", cp, "-d", str(work), str(SOURCE)], check=True)
    out: dict[str, dict[int, dict[str, float]]] = {c: {} for c in CODECS}
    for codec, reducers in CODECS.items():
        for mode, key in ((None, "emulated"), ("sorted", "emulated_sorted_lists")):
            args = [str(folder / "part-00000"), str(split_end), str(spill0)]
            args += [f"org.apache.hadoop.io.compress.{codec}", ",".join(map(str, reducers))]
            cmd = ["java", "-Xmx3g", "-cp", f"{cp}:{work}", "CodecOrderStudy", *args]
            text = subprocess.run(
                cmd + ([mode] if mode else []), check=True, capture_output=True, text=True
            ).stdout
            for m in re.finditer(r"R=(\d+) materialized=(\d+)", text):
                out[codec].setdefault(int(m.group(1)), {})[key] = float(m.group(2))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", type=Path)
    args = ap.parse_args(argv)
    runs = _runs()
    measured = _measured(runs)
    with tempfile.TemporaryDirectory() as tmp:
        replay = _replay(runs, Path(tmp))
    table: dict[str, Any] = {}
    for codec in CODECS:
        one = {**replay[codec].get(1, {}), **measured[codec].get(1, {})}
        one["probe_parts"] = one["measured"]  # the probe's final stage is its R = 1
        rows = {}
        for r in sorted(set(replay[codec]) | set(measured[codec])):
            row = {**replay[codec].get(r, {}), **measured[codec].get(r, {})}
            # each figure against its own kind at one reducer
            row["vs_one_reducer"] = {k: v / one[k] - 1 for k, v in row.items()}
            if "measured" in row and "emulated" in row:
                row["emulated_error"] = row["emulated"] / row["measured"] - 1
            rows[str(r)] = row
        table[codec] = rows
    doc = {"what": __doc__.split("\n")[0], "codecs": table}
    text = json.dumps(doc, indent=1)
    if args.output:
        args.output.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
