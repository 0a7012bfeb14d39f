"""Packing a recorded YARN round (:mod:`mrtune.harness.yarn_pack`): what ``validate`` reads
survives, paths become relative to the index, and nothing else is overwritten.

The "live" round is rebuilt in ``tmp_path`` from two runs of the committed round 3, laid out
as the launcher leaves them (``<work>/jobs/<run>/`` and the NodeManagers' logs under
``<work>/target/``), with absolute paths in its index.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from mrtune.errors import InputError
from mrtune.harness.yarn_fidelity import load_history_runs
from mrtune.harness.yarn_measure import measure
from mrtune.harness.yarn_pack import pack_round

ROUND = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "yarn-r3"
RUNS = ("sort-default.r1", "wc-sortmb-5.r0")


def _live_round(work: Path) -> Path:
    lines = []
    for line in (ROUND / "runs.jsonl").read_text(encoding="utf-8").splitlines():
        e = json.loads(line)
        name = f"{e['label']}.r{e['repeat']}"
        if name not in RUNS:
            continue
        run_dir = work / "jobs" / name
        run_dir.mkdir(parents=True)
        for key in ("jhist", "conf_xml"):
            src = ROUND / e[key]
            dest = run_dir / src.name.removesuffix(".gz")
            dest.write_bytes(gzip.decompress(src.read_bytes()))
            e[key] = str(dest)
        for log in (ROUND / name).glob("application_*/container_*/syslog.gz"):
            dest = work / "target/test/data/x/nm-0_0" / log.parent.parent.name / log.parent.name
            dest.mkdir(parents=True)
            (dest / "syslog").write_bytes(gzip.decompress(log.read_bytes()) + b"later line\n")
        e |= {"run_dir": str(run_dir), "jar": "/x/jobs.jar", "log": str(run_dir / "client.log")}
        lines.append(json.dumps(e))
    lines.append(json.dumps({"label": "failed", "mode": "yarn", "success": False, "jhist": None}))
    index = work / "runs.jsonl"
    index.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return index


def test_a_packed_round_measures_as_the_live_one(tmp_path: Path) -> None:
    index = _live_round(tmp_path / "work")
    out = tmp_path / "packed"
    done = pack_round(index, out)
    assert done["runs"] == 3 and done["succeeded"] == 2
    live, packed = load_history_runs(index), load_history_runs(out / "runs.jsonl")
    assert [r.label for r in packed] == [r.label for r in live]
    for a, b in zip(live, packed, strict=True):
        assert out in b.jhist.parents and b.jhist.suffix == ".gz"
        assert gzip.decompress(b.jhist.read_bytes()) == a.jhist.read_bytes()
        assert gzip.decompress(b.conf_xml.read_bytes()) == a.conf_xml.read_bytes()
        got = measure(b.jhist)
        assert got == measure(a.jhist) and got["container_start"]
    entries = [json.loads(x) for x in (out / "runs.jsonl").read_text().splitlines()]
    assert not any(k in e for e in entries for k in ("jar", "log", "run_dir"))
    assert all(not Path(e["jhist"]).is_absolute() for e in entries if e.get("jhist"))
    # the syslogs are cut after the task's start line: the later line is not kept
    kept = next(out.glob("*/application_*/container_*/syslog.gz"))
    assert b"later line" not in gzip.decompress(kept.read_bytes())


def test_packing_again_replaces_a_pack_and_nothing_else(tmp_path: Path) -> None:
    index = _live_round(tmp_path / "work")
    out = tmp_path / "packed"
    pack_round(index, out)
    first = (out / "runs.jsonl").read_bytes()
    (out / "stale.txt").write_text("x")
    pack_round(index, out)
    assert (out / "runs.jsonl").read_bytes() == first and not (out / "stale.txt").exists()
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("x")
    with pytest.raises(InputError, match="not a packed round"):
        pack_round(index, other)
    assert (other / "keep.txt").exists()
