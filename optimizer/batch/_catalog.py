"""Catalog inputs: what ``mrtune batch CATALOG…`` accepts, as a list of :class:`JobRef`.

A catalog is any mix of

* directories, searched recursively (sorted, so the order is stable) for ``*.jhist`` job
  histories (their ``<job id>_conf.xml`` beside them is found by
  :func:`mrtune.readers.load_profile_source`), SWIM traces (``*.tsv``), JSONL files of profiles
  (``*.jsonl``), and the ``.json`` / ``.json.gz`` files that are Rumen traces or job profiles
  (known by their content, as ``mrtune diagnose DIR`` reads them: a directory's Rumen traces
  were skipped without a word while diagnose read them). Any other ``.json`` (a REST
  response, a report) is skipped with one line saying why and how to include its job
  (:func:`discover`'s ``skipped``); other files (the ``_conf.xml`` themselves, READMEs) are
  skipped silently;
* files named directly, by the same suffixes (``.json`` is also read as JSONL; a ``.json``
  holding one JSON object, such as a profile written by ``mrtune profile -o``, is one job),
  and Rumen traces (``.json``, ``.json.gz``; known by their content): one job a ``LoggedJob``;
* saved JobHistory REST responses: a directory of them is one job (as ``mrtune profile
  DIR``), and so is one such file named directly;
* ``mrtune hadoop-run``'s runs.jsonl, wherever it is met: a local run record is one job
  (profiled from the run), a YARN index entry its ``.jhist`` (a directory's ``.jhist`` and the
  index naming it are one job, keyed by the path).

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
from mrtune.readers import sniff_format
from mrtune.readers.rest import is_rest_payload
from mrtune.readers.swim import iter_swim

JHIST = "jhist"
SWIM = "swim"
PROFILE = "profile"
RUMEN = "rumen"
RUN = "run"
REST = "rest"
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
    if kind in (JHIST, REST):  # a REST source is a directory of saved responses, or one file
        return [JobRef(src, kind, src)]
    if kind in (PROFILE, RUMEN):
        if kind == RUMEN or sniff_format(path) == "rumen":  # RUMEN: sniffed by the caller
            # a Rumen trace is one file of many jobs (it was read as JSONL: one failure a line)
            from mrtune.readers.rumen import load_rumen

            return [
                JobRef(f"{src}:{h.job_id}", RUMEN, src, h.job_id, h.job_id)
                for h in load_rumen(path)
            ]
    if kind == PROFILE and path.suffix.lower() in (".jsonl", ".json"):
        own = _run_refs(path)
        if own is not None:
            return own
    try:
        if kind == SWIM:
            return [
                JobRef(f"{src}:{n}", SWIM, src, line, line.split("\t", 1)[0].strip())
                for n, line in iter_swim(path)
            ]
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=src) from None
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    doc = _json_value(text) if len(lines) > 1 and path.suffix.lower() == ".json" else None
    if isinstance(doc, dict) and doc:
        # one indented document (``mrtune profile -o``), not one job a line
        return [JobRef(f"{src}:1", PROFILE, src, text.strip())]
    return [JobRef(f"{src}:{n}", PROFILE, src, line) for n, line in lines]


def _run_refs(path: Path) -> list[JobRef] | None:
    """The jobs of ``mrtune hadoop-run``'s runs.jsonl, ``None`` for any other file: a local
    run record is one job (profiled from the run, as ``mrtune profile runs.jsonl`` does), and
    an entry of the YARN index names its ``.jhist`` (with its ``_conf.xml`` beside it)."""
    import json

    from mrtune.readers import holds_run_records

    src = str(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=src) from None
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if holds_run_records(path):
        whole = _json_value(text) if len(lines) > 1 else None
        if isinstance(whole, dict):  # one indented record (-o x.json)
            return [JobRef(f"{src}:1", RUN, src, text.strip())]
        if isinstance(whole, list):  # a JSON list of records
            return [JobRef(f"{src}:{i}", RUN, src, json.dumps(r)) for i, r in enumerate(whole, 1)]
        return [JobRef(f"{src}:{n}", RUN, src, line) for n, line in lines]
    try:
        first = json.loads(lines[0][1]) if lines else None
    except ValueError:
        return None
    if not (isinstance(first, dict) and "jhist" in first and "conf_xml" in first):
        return None
    refs = []
    for _, line in lines:
        try:
            jhist = json.loads(line).get("jhist")
        except (ValueError, AttributeError):
            jhist = None
        if isinstance(jhist, str) and jhist:  # a failed run's entry names no history
            refs.append(JobRef(jhist, JHIST, jhist))
    return refs


def _is_rest(path: Path) -> bool:
    """Whether ``path`` holds a JobHistory REST response (its payload keys: ``job``,
    ``tasks``, ``jobCounters`` …), by content."""
    try:
        data = _json_value(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return False
    return data is not None and is_rest_payload(data)


def _json_value(text: str) -> object | None:
    """The JSON value ``text`` holds, or ``None`` (not JSON); callers ask for its type."""
    import json

    try:
        return json.loads(text)
    except ValueError:
        return None


#: How to have the job of a skipped ``.json`` tuned (:func:`_dir_json_kind`).
INCLUDE_HOW = (
    "to tune its job, write its profile into the catalog (mrtune profile FILE -o JOB.json)"
)


def _dir_json_kind(path: Path, skipped: list[str]) -> str | None:
    """The kind of a ``.json`` / ``.json.gz`` found in a catalog directory: a Rumen trace or a
    job profile; anything else gets its line in ``skipped`` (why, and how to include it)."""
    try:
        kind = sniff_format(path)
        if kind == "rumen":
            return RUMEN
        if kind == "run" and path.suffix.lower() == ".json":  # hadoop-run -o record.json
            return PROFILE
    except InputError as exc:
        skipped.append(f"{path}: skipped: {exc.message}; {INCLUDE_HOW}")
        return None
    if path.suffix.lower() == ".json":
        try:
            data = _json_value(path.read_text(encoding="utf-8", errors="replace"))
        except OSError as exc:
            skipped.append(f"{path}: skipped: cannot read: {exc.strerror or exc}")
            return None
        if isinstance(data, dict) and "input_bytes" in data and "stats" in data:
            return PROFILE
        if data is not None and is_rest_payload(data):  # a job's saved REST response
            return REST
    skipped.append(
        f"{path}: skipped: JSON that is neither a Rumen trace nor a job profile (what batch "
        f"takes from a directory's .json files); {INCLUDE_HOW}"
    )
    return None


def _dir_files(root: Path, skipped: list[str]) -> list[tuple[Path, str]]:
    """A catalog directory's job files with their kinds (sorted, recursive)."""
    out: list[tuple[Path, str]] = []
    for f in sorted(f for f in root.rglob("*") if f.is_file()):
        name = f.name.lower()
        if name.endswith((".json", ".json.gz")):
            kind = _dir_json_kind(f, skipped)
        else:
            kind = None if f.suffix.lower() == ".gz" else SUFFIX_KIND.get(f.suffix.lower())
        if kind == REST:  # a directory of saved REST responses is one job, as profile DIR
            if (f.parent, REST) not in out:
                out.append((f.parent, REST))
        elif kind is not None:
            out.append((f, kind))
    return out


def discover(paths: Iterable[str | Path], skipped: list[str] | None = None) -> list[JobRef]:
    """Every job of the catalog, in a stable order, without duplicates.

    ``skipped``: gets one line per ``.json`` file of a directory that is not taken (why, and
    how to include its job), so that nothing is left out without a word.

    Raises:
        InputError: a path does not exist, or a file named directly has an unknown suffix.
    """
    refs: list[JobRef] = []
    seen: set[str] = set()
    skipped = [] if skipped is None else skipped
    for raw in paths:
        p = Path(raw).absolute()
        if not p.exists():
            raise InputError("no such file or directory", path=str(raw))
        if p.is_dir():
            files = _dir_files(p, skipped)
        else:
            if p.suffix.lower() not in SUFFIX_KIND:
                raise InputError(
                    "unknown catalog file type",
                    path=str(raw),
                    allowed=".jhist (+ _conf.xml beside it), .tsv (SWIM trace), .jsonl / .json "
                    "(one JobProfile JSON a line), a Rumen trace (.json, .json.gz), or a "
                    "directory of them",
                )
            kind = SUFFIX_KIND[p.suffix.lower()]
            if kind == RUMEN and sniff_format(p) != "rumen":
                raise InputError("a .gz catalog file must be a Rumen trace", path=str(raw))
            if kind == PROFILE and p.suffix.lower() == ".json" and sniff_format(p) != "run":
                kind = REST if _is_rest(p) else kind
            files = [(p, kind)]
        for f, kind in files:
            for ref in _file_refs(f, kind):
                if ref.key not in seen:
                    seen.add(ref.key)
                    refs.append(ref)
    return refs
