"""Catalog inputs: what ``mrtune batch CATALOG…`` accepts, as a list of :class:`JobRef`.

A catalog is any mix of

* directories, searched recursively (sorted, so the order is stable) for ``*.jhist`` job
  histories (their ``<job id>_conf.xml`` beside them is found by
  :func:`mrtune.readers.load_profile_source`), SWIM traces (``*.tsv``) and JSONL files of profiles
  (``*.jsonl``); other files (the ``_conf.xml`` themselves, READMEs) are skipped;
* files named directly, by the same suffixes (``.json`` is also read as JSONL), and Rumen
  traces (``.json``, ``.json.gz``; known by their content): one job a ``LoggedJob``.

Discovery only lists jobs; reading a job (parsing a history, building a profile) happens in the
workers, so a bad job fails there, alone, with its reason. A :class:`JobRef` carries what a
worker needs: a SWIM row or a JSONL line travels with the reference (remote Dask workers need no
access to the trace), a ``.jhist`` travels as its path (workers must see the same files).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mrtune.errors import InputError
from mrtune.readers.swim import iter_swim

JHIST = "jhist"
SWIM = "swim"
PROFILE = "profile"
RUMEN = "rumen"
SUFFIX_KIND = {".jhist": JHIST, ".tsv": SWIM, ".jsonl": PROFILE, ".json": PROFILE, ".gz": RUMEN}


@dataclass(frozen=True)
class JobRef:
    """One job of a catalog.

    Attributes:
        key: unique, stable identity in the catalog (``path`` for a history, ``path:line`` for
            a trace row or a JSONL line): what the results store is keyed by.
        kind: ``jhist``, ``swim``, ``profile`` or ``rumen``.
        source: the file the job comes from.
        payload: the SWIM row or JSONL line, a Rumen trace's job id (empty for a history).
        job_id: the job id when known without reading the job (SWIM), else ``""``.
    """

    key: str
    kind: str
    source: str
    payload: str = ""
    job_id: str = ""


def _file_refs(path: Path, kind: str) -> list[JobRef]:
    src = str(path)
    if kind == JHIST:
        return [JobRef(src, JHIST, src)]
    if kind in (PROFILE, RUMEN):
        from mrtune.readers import sniff_format

        if sniff_format(path) == "rumen":
            # a Rumen trace is one file of many jobs (it was read as JSONL: one failure a line)
            from mrtune.readers.rumen import load_rumen

            return [
                JobRef(f"{src}:{h.job_id}", RUMEN, src, h.job_id, h.job_id)
                for h in load_rumen(path)
            ]
        if kind == RUMEN:
            raise InputError("a .gz catalog file must be a Rumen trace", path=src)
    try:
        if kind == SWIM:
            return [
                JobRef(f"{src}:{n}", SWIM, src, line, line.split("\t", 1)[0].strip())
                for n, line in iter_swim(path)
            ]
        with path.open(encoding="utf-8", errors="replace") as fh:
            return [
                JobRef(f"{src}:{n}", PROFILE, src, line.strip())
                for n, line in enumerate(fh, 1)
                if line.strip()
            ]
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=src) from None


def discover(paths: Iterable[str | Path]) -> list[JobRef]:
    """Every job of the catalog, in a stable order, without duplicates.

    Raises:
        InputError: a path does not exist, or a file named directly has an unknown suffix.
    """
    refs: list[JobRef] = []
    seen: set[str] = set()
    for raw in paths:
        p = Path(raw).absolute()
        if not p.exists():
            raise InputError("no such file or directory", path=str(raw))
        if p.is_dir():
            files = sorted(
                f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in SUFFIX_KIND
            )
            files = [f for f in files if f.suffix.lower() not in (".json", ".gz")]
        else:
            if p.suffix.lower() not in SUFFIX_KIND:
                raise InputError(
                    "unknown catalog file type",
                    path=str(raw),
                    allowed=".jhist (+ _conf.xml beside it), .tsv (SWIM trace), .jsonl / .json "
                    "(one JobProfile JSON a line), a Rumen trace (.json, .json.gz), or a "
                    "directory of them",
                )
            files = [p]
        for f in files:
            for ref in _file_refs(f, SUFFIX_KIND[f.suffix.lower()]):
                if ref.key not in seen:
                    seen.add(ref.key)
                    refs.append(ref)
    return refs
