"""numpy calls, full-array passes and temporaries of one model call (issue 18, item 2).

The search's path is :func:`~mrtune.costmodel.job.evaluate` → ``predict_job(...,
counters=False)``: its cost per configuration is the number of times numpy walks a whole
array, and its fixed cost per call the number of numpy calls. This script counts both on
the profile and cluster of ``bench_costmodel.py``, for one ``EVALUATE_CHUNK`` call and for a
search's small call (the full and tail map tasks paired, ``costmodel/_map_pair.py``).

How it counts: the batch's columns become an ndarray subclass whose ``__array_ufunc__`` and
``__array_function__`` record every ufunc call (``a + b``, ``np.maximum``, ``x.any()``'s
reduce), every array function (``np.where``, ``np.concatenate`` …) and every new array made
by a copy (``astype``, fancy indexing, ``np.zeros``: ``__array_finalize__`` of an array that
is not a view); the model modules' ``np`` is wrapped so that ``np.asarray`` keeps the
subclass. A *pass* is one such operation whose result has at least the call's row count of
elements (an operation on a subset of the rows, such as the merge plan of the rows that merge
in several passes, is counted apart); a *temporary* is a pass that allocated its result (no
``out=``); *bytes* adds the full-size operands and result of each pass (8 bytes an element
for float64). The counts are
of the numpy operations the model asks for, not of CPU time (a ``log`` costs more than a
``+``); ``bench_costmodel.py`` measures the time.

Run: ``python benchmarks/count_passes.py [--rows N]``.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


class Tally:
    """What the counted arrays did."""

    def __init__(self) -> None:
        self.rows = 1
        self.calls = 0
        self.passes = 0
        self.partial = 0
        self.temps = 0
        self.bytes = 0
        self.by_name: Counter[str] = Counter()
        self.by_site: Counter[str] = Counter()
        self.quiet = 0

    def record(self, name: str, result: object, operands: tuple[object, ...], fresh: bool) -> None:
        self.calls += 1
        self.by_name[name] += 1
        size = getattr(result, "size", 0)
        if size < self.rows:
            # a pass over some of the rows (a subset the model computes alone)
            self.partial += int(self.rows >= 64 and size >= self.rows // 64)
            return
        self.passes += 1
        self.by_site[_site()] += 1
        self.temps += int(fresh)
        touched = [result, *operands]
        self.bytes += sum(
            a.size * a.itemsize
            for a in touched
            if isinstance(a, np.ndarray) and a.size >= self.rows and a.strides != (0,)
        )


TALLY = Tally()


def _site() -> str:
    """The model function (module:function) that asked for the operation."""
    f = sys._getframe(2)
    while f is not None and "costmodel" not in f.f_code.co_filename:
        f = f.f_back
    if f is None:
        return "?"
    return f"{Path(f.f_code.co_filename).stem}:{f.f_code.co_name}"


def _raw(x: Any) -> Any:
    if isinstance(x, Counted):
        return x.view(np.ndarray)
    if isinstance(x, tuple | list):
        return type(x)(_raw(v) for v in x)
    return x


def _wrap(x: Any) -> Any:
    if isinstance(x, np.ndarray) and not isinstance(x, Counted):
        TALLY.quiet += 1
        try:
            return x.view(Counted)
        finally:
            TALLY.quiet -= 1
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    return x


class Counted(np.ndarray):
    """An ndarray that reports what is done with it to :data:`TALLY`."""

    def __array_finalize__(self, obj: object) -> None:
        if obj is None or TALLY.quiet or self.base is not None:
            return  # a view, or our own wrapping
        TALLY.record("copy", self, (obj,), fresh=True)

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):  # noqa: ANN001,ANN204
        args = _raw(inputs)
        kwargs = {k: _raw(v) for k, v in kwargs.items()}
        if out is not None:
            kwargs["out"] = _raw(out)
        TALLY.quiet += 1
        try:
            res = getattr(ufunc, method)(*args, **kwargs)
        finally:
            TALLY.quiet -= 1
        TALLY.record(f"{ufunc.__name__}.{method}", res, args, fresh=out is None)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrap(res)

    def __array_function__(self, func, types, args, kwargs):  # noqa: ANN001,ANN204
        raw_args, raw_kwargs = _raw(args), {k: _raw(v) for k, v in kwargs.items()}
        TALLY.quiet += 1
        try:
            res = func(*raw_args, **raw_kwargs)
        finally:
            TALLY.quiet -= 1
        views = {"broadcast_to", "broadcast_arrays", "shape", "ndim", "size"}
        fresh = func.__name__ not in views
        if fresh:
            flat = [a for a in raw_args if isinstance(a, np.ndarray)]
            TALLY.record(func.__name__, res, tuple(flat), fresh=True)
        return _wrap(res)


class _CountingNumpy:
    """``numpy`` as the model modules see it: ``asarray`` keeps :class:`Counted`, and the
    array constructors that do not dispatch return counted arrays."""

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)

    @staticmethod
    def asarray(a: Any, dtype: Any = None) -> Any:
        return np.asanyarray(a, dtype=dtype)

    @staticmethod
    def _made(name: str, arr: np.ndarray) -> np.ndarray:
        out = _wrap(arr)
        TALLY.record(name, out, (), fresh=True)
        return out

    def zeros(self, *a: Any, **k: Any) -> np.ndarray:
        return self._made("zeros", np.zeros(*a, **k))

    def ones(self, *a: Any, **k: Any) -> np.ndarray:
        return self._made("ones", np.ones(*a, **k))

    def empty(self, *a: Any, **k: Any) -> np.ndarray:
        return self._made("empty", np.empty(*a, **k))

    def full(self, *a: Any, **k: Any) -> np.ndarray:
        return self._made("full", np.full(*a, **k))

    def arange(self, *a: Any, **k: Any) -> np.ndarray:
        return self._made("arange", np.arange(*a, **k))


def instrument() -> None:
    """Give every loaded model module the counting ``np``."""
    proxy = _CountingNumpy()
    for name, mod in list(sys.modules.items()):
        if name.startswith("mrtune.costmodel") and getattr(mod, "np", None) is np:
            mod.np = proxy


def count(profile: Any, batch: Any, cluster: Any) -> Tally:
    """The tally of one ``predict_job(..., counters=False)`` call on ``batch``."""
    from dataclasses import fields, replace

    from mrtune.costmodel import predict_job

    counted = replace(batch, **{f.name: _wrap(getattr(batch, f.name)) for f in fields(batch)})
    global TALLY
    TALLY = Tally()
    TALLY.rows = len(batch)
    predict_job(profile, counted, cluster, counters=False)
    return TALLY


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=None, help="rows of the big call")
    ap.add_argument("--top", type=int, default=0, help="print the N most frequent operations")
    ap.add_argument("--sites", action="store_true", help="print the passes of each function")
    args = ap.parse_args()
    from bench_costmodel import bench_case  # type: ignore[import-not-found]

    from mrtune.costmodel.job import EVALUATE_CHUNK

    profile, cluster, space = bench_case()
    rng = np.random.default_rng(0)
    instrument()
    for rows in (args.rows or EVALUATE_CHUNK, 7):
        values = space.repair(space.from_unit(rng.random((rows, len(space.knobs)))))
        batch = space.to_batch(values, repair=False)
        t = count(profile, batch, cluster)
        per = t.bytes / rows
        print(
            f"rows={rows}: {t.calls} numpy calls, {t.passes} full-array passes "
            f"(+{t.partial} over a subset of the rows), {t.temps} temporaries, "
            f"{per:,.0f} bytes touched per configuration"
        )
        for name, k in t.by_name.most_common(args.top):
            print(f"    {name}: {k}")
        if args.sites:
            for name, k in t.by_site.most_common():
                print(f"    passes in {name}: {k}")


if __name__ == "__main__":
    main()
