"""A gzipped file read line by line, its decompressed size capped (:mod:`safe_io`'s rule).

Why a module of its own: :mod:`mrtune.readers.safe_io` reads whole files; the ``.jhist`` line
reader streams, and an archived history (``.jhist.gz``, how a YARN round is kept:
:mod:`mrtune.harness.yarn_pack`) must stream too, with a gzip bomb stopped at the same cap.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from mrtune.errors import InputError
from mrtune.readers.safe_io import _too_big, max_input_bytes


def is_gzip(path: str | Path) -> bool:
    """Whether the file starts with the gzip magic bytes (``1f 8b``)."""
    try:
        with Path(path).open("rb") as fh:
            return fh.read(2) == b"\x1f\x8b"
    except OSError:
        return False


class CappedGzip:
    """A gzip file read line by line, its decompressed size held to :func:`max_input_bytes`.

    Why: a streamed reader (the ``.jhist`` line reader) must not hold the whole history, yet a
    gzip bomb must stop at the cap as :func:`~mrtune.readers.safe_io.read_bytes` does for
    whole files. Only ``readline`` is offered, which is all the line readers use; damaged data
    is one :class:`InputError` line, as in ``safe_io``'s whole-file gunzip.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._gz = gzip.open(path, "rb")  # noqa: SIM115 - closed by __exit__
        self._seen = 0
        self._limit = max_input_bytes()

    def readline(self, size: int = -1) -> bytes:
        try:
            line = self._gz.readline(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(
                f"cannot read the gzip data (damaged or truncated): {exc}", path=self.path
            ) from None
        self._seen += len(line)
        if self._seen > self._limit:
            raise _too_big(self.path, self._seen, self._limit, "decompressed, the file is over")
        return line

    def __enter__(self) -> CappedGzip:
        return self

    def __exit__(self, *exc: object) -> None:
        self._gz.close()
