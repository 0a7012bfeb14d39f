"""SWIM traces (``SWIMProjectUCB/SWIM``, Facebook FB-2009 / FB-2010 samples): one job a line.

Each line records only a job's data volumes: ``job_id, submit_time_s, inter_job_gap_s,
map_input_bytes, shuffle_bytes, reduce_output_bytes`` (tab-separated, no header). A line becomes a
:class:`SwimRow`; :mod:`mrtune.profiling.swim` turns a row into a profile, stating every
assumption it has to make.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mrtune.errors import InputError
from mrtune.readers import safe_io

SWIM_SOURCE = "SWIM trace (SWIMProjectUCB/SWIM)"


@dataclass(frozen=True)
class SwimRow:
    """One parsed line of a SWIM trace."""

    job_id: str
    submit_time_s: float
    inter_job_gap_s: float
    map_input_bytes: float
    shuffle_bytes: float
    reduce_output_bytes: float

    @property
    def map_only(self) -> bool:
        return self.shuffle_bytes == 0


def parse_swim_line(line: str, *, path: str = "", lineno: int = 0) -> SwimRow:
    """Parse one tab-separated SWIM line; a malformed one raises :class:`InputError`."""
    parts = line.rstrip("\r\n").split("\t")
    where = f"{path}:{lineno}" if path else None
    if len(parts) != 6:
        raise InputError(
            f"a SWIM row has 6 tab-separated fields, this one has {len(parts)}",
            path=where,
            allowed="job_id, submit_time_s, inter_job_gap_s, map_input_bytes, shuffle_bytes, "
            "reduce_output_bytes",
        )
    try:
        nums = [float(p) for p in parts[1:]]
    except ValueError:
        raise InputError("non-numeric field", path=where, value=line.strip()) from None
    if any(n < 0 or not math.isfinite(n) for n in nums):
        raise InputError("negative or non-finite volume", path=where, value=line.strip())
    return SwimRow(parts[0].strip(), *nums)


#: Longest SWIM line accepted: a real one is under 100 bytes (six short fields).
MAX_LINE_BYTES = 4096


def iter_swim(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, raw line)`` of every non-blank line of a SWIM trace, streamed.

    The file is size-capped (:func:`~mrtune.readers.safe_io.check_size`), read line by line
    with each line bounded (a file without newlines cannot become one huge string), and must
    be UTF-8.
    """
    safe_io.check_size(path)
    try:
        with path.open("rb") as fh:
            lineno = 0
            while raw := fh.readline(MAX_LINE_BYTES + 1):
                lineno += 1
                if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    raise InputError(
                        f"line longer than {MAX_LINE_BYTES} bytes: not a SWIM trace",
                        path=f"{path}:{lineno}",
                    )
                line = safe_io.decode_utf8(raw, f"{path}:{lineno}")
                if line.strip():
                    yield lineno, line
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path=str(path)) from None
