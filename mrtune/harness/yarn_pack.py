"""Keep a recorded YARN round: its histories, compactly, with an index that travels.

A round of the YARN matrix (:mod:`mrtune.harness.yarn_matrix`) leaves, per run, the ``.jhist``
and ``_conf.xml`` the JobHistory server wrote and, under the launcher's work folder, the
NodeManagers' container logs; its ``runs.jsonl`` names them by absolute paths on the machine
that ran it. Once that folder is gone the report cannot be regenerated (the fate of rounds 1
and 2). :func:`pack_round` copies what ``mrtune validate`` reads into one folder:

- ``<run>/<the .jhist's own name>.gz`` and ``<run>/<job id>_conf.xml.gz``: the very files, gzipped
  (the readers gunzip them: :class:`mrtune.readers.gzip_stream.CappedGzip`);
- ``<run>/<application>/<container>/syslog.gz``: each task container's ``syslog`` up to the
  line where the task reached its work, which is all
  :func:`mrtune.harness.container_start.container_starts` reads (the JVM's first line and
  that line); the AM's log is not read and not kept;
- ``matrix.json``: the launcher's summary of the round (cluster start-up, CPU seconds), when
  the round ran as one matrix;
- ``runs.jsonl``: the index with those paths relative to the index file
  (:func:`mrtune.harness.yarn_fidelity.load_history_runs` resolves them there), so
  ``mrtune validate <folder>/runs.jsonl`` works on any clone. Paths of the recording machine
  (the jobs jar, the client log) are dropped.

The gzip streams carry no name or time stamp, so packing the same round twice gives the same
bytes. Usage: ``python -m mrtune.harness.yarn_pack RUNS.jsonl OUT_DIR``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
from pathlib import Path
from typing import Any

from mrtune.errors import InputError
from mrtune.harness.container_start import TASK_REACHED, container_logs
from mrtune.readers import load_history

#: Index fields that name files or folders of the recording machine: not carried over.
_LOCAL_FIELDS = ("jar", "log", "run_dir")


def _gz_write(data: bytes, dest: Path) -> int:
    """``data`` gzipped to ``dest`` (level 9, no name, mtime 0: reproducible bytes)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with dest.open("wb") as raw, gzip.GzipFile("", "wb", 9, raw, mtime=0) as gz:
        gz.write(data)
    return dest.stat().st_size


def syslog_head(text: str) -> str:
    """A container ``syslog`` up to and including the first line where the task reached its
    work (:data:`~mrtune.harness.container_start.TASK_REACHED`); the whole log if it never
    did (the reader then finds what it would have found in the full log)."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if any(k in line for k in TASK_REACHED):
            return "".join(lines[: i + 1])
    return text


def _pack_run(e: dict[str, Any], out: Path) -> tuple[dict[str, Any], int]:
    """One index line's files into ``out/<run>/``; the new line and the bytes written."""
    jhist, conf = Path(e["jhist"]), Path(e["conf_xml"])
    run_dir = Path(e["run_dir"]) if e.get("run_dir") else jhist.parent
    name = run_dir.name
    dest = out / name
    size = _gz_write(jhist.read_bytes(), dest / f"{jhist.name}.gz")
    size += _gz_write(conf.read_bytes(), dest / f"{conf.name}.gz")
    history = load_history(jhist)
    work = run_dir.parent.parent  # <work>/jobs/<run>: the launcher's work folder
    attempts = {a.container_id for a in history.attempts if a.container_id}
    app = history.job_id.replace("job_", "application_", 1)
    for cid, syslog in sorted(container_logs(work, history.job_id).items()):
        if cid in attempts:  # the task containers (the AM's log is not read)
            head = syslog_head(syslog.read_text(encoding="utf-8", errors="replace"))
            size += _gz_write(head.encode("utf-8"), dest / app / cid / "syslog.gz")
    line = {k: v for k, v in e.items() if k not in _LOCAL_FIELDS}
    line["jhist"] = f"{name}/{jhist.name}.gz"
    line["conf_xml"] = f"{name}/{conf.name}.gz"
    return line, size


def pack_round(index: Path, out: Path) -> dict[str, Any]:
    """Pack every run of ``index`` into ``out`` (see the module doc); failed runs keep their
    index line without files. Returns the counts and the bytes written."""
    lines = [json.loads(x) for x in index.read_text(encoding="utf-8").splitlines() if x.strip()]
    if not lines:
        raise InputError("no runs in the index", path=str(index))
    if (out / "runs.jsonl").is_file():  # an earlier pack of a round: replaced whole
        shutil.rmtree(out)
    elif out.exists() and any(out.iterdir()):
        raise InputError("not empty and not a packed round (no runs.jsonl)", path=str(out))
    out.mkdir(parents=True, exist_ok=True)
    packed, total = [], 0
    works = {Path(e["run_dir"]).parent.parent for e in lines if e.get("run_dir")}
    for work in sorted(works):  # the launcher's summary (start-up, CPU): no paths in it
        if (work / "matrix.json").is_file() and len(works) == 1:
            shutil.copyfile(work / "matrix.json", out / "matrix.json")
    for e in lines:
        if e.get("success") and e.get("jhist") and e.get("conf_xml"):
            e, size = _pack_run(e, out)
            total += size
        else:
            e = {k: v for k, v in e.items() if k not in _LOCAL_FIELDS}
        packed.append(e)
    text = "".join(json.dumps(e, sort_keys=True) + "\n" for e in packed)
    (out / "runs.jsonl").write_text(text, encoding="utf-8")
    return {"runs": len(packed), "succeeded": sum(bool(e.get("success")) for e in packed),
            "bytes": total + len(text.encode())}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("index", type=Path, help="the round's runs.jsonl")
    ap.add_argument("out", type=Path, help="the folder to write (replaced)")
    args = ap.parse_args()
    print(json.dumps(pack_round(args.index, args.out)))


if __name__ == "__main__":
    main()
