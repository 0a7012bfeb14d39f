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
from mrtune.readers.safe_io import LONG_MAX

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


#: The fields of a SWIM row, in order.
SWIM_FIELDS = (
    "job_id",
    "submit_time_s",
    "inter_job_gap_s",
    "map_input_bytes",
    "shuffle_bytes",
    "reduce_output_bytes",
)
#: Most bytes a volume may hold: a Java ``long``, as Hadoop's byte counters
#: (``FileSystemCounter.BYTES_READ``, ``MAP_OUTPUT_BYTES``) and README's "integers fit a Java
#: long". A row of 1e308 bytes had run into the model and overflowed it to infinities (18 numpy
#: warnings and "the job's current configuration is infeasible").
MAX_BYTES = LONG_MAX
#: Most seconds a time may hold: a Java ``long`` of milliseconds, as Hadoop logs its instants.
MAX_SECONDS = LONG_MAX / 1000.0


def _check_bound(name: str, raw: str, n: float, where: str | None) -> None:
    """One line naming the row, the field, the value and the range for a number no job can
    have: negative, non-finite, or beyond a Java ``long`` (:data:`MAX_BYTES`,
    :data:`MAX_SECONDS`)."""
    ms = name.endswith("_s")
    if ms:
        allowed = f"0 to {MAX_SECONDS:.6g} s (a Java long of milliseconds)"
    else:
        allowed = f"0 to {MAX_BYTES} bytes (a Java long, as Hadoop counts bytes)"
    if n < 0 or not math.isfinite(n):
        what = "a negative or non-finite number"
    elif _exact(raw, n) * (1000 if ms else 1) > LONG_MAX:
        what = "beyond a Java long"
    else:
        return
    raise InputError(what, path=where, field=name, value=raw, allowed=allowed)


def _exact(raw: str, n: float) -> int | float:
    """An integer field as the integer it is (``float`` rounds 2^63 - 1 up to 2^63), else
    ``n``; Python compares an int and a float exactly."""
    try:
        return int(raw)
    except ValueError:
        return n


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
    for name, raw, n in zip(SWIM_FIELDS[1:], parts[1:], nums, strict=True):
        _check_bound(name, raw.strip(), n, where)
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
