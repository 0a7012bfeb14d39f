"""Collect and Spill of a map task (reference §2.3, §8.1): how many spills
``MapTask.MapOutputBuffer`` makes, what they hold and write (``sortAndSpill``, the combiner
per spill), what they cost, and how much of it the ``SpillThread`` hides behind the map
function.

Vectorised over configurations; each step reads and writes a
:class:`~mrtune.costmodel._map_inputs.MapWork`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mrtune.costmodel._ifile import METADATA_BYTES, at_least, at_most, fma, quotient
from mrtune.costmodel._map_inputs import (
    MapInputs,
    MapWork,
    combine_keys,
    combine_width,
    if_combining,
)
from mrtune.costmodel.batch import ConfigBatch
from mrtune.costmodel.profile import JobProfile
from mrtune.costmodel.stacked import StackedProfiles, nonzero

F64 = NDArray[np.float64]


def _comparisons(recs: F64, parts: F64) -> F64:
    """DESIGN decision 3: ``n·log2(max(2, n/R))`` sort comparisons, as when profiling."""
    t = recs / parts
    at_least(t, 2.0, out=t)
    np.log2(t, out=t)
    t *= recs
    return t


def _cache_factor(working_set: F64, cache_bytes: float, slowdown: float) -> F64:
    """``1 + slowdown · log2(max(1, working set / cache))``: the cost of a comparison relative
    to one in cache. Measured on local WordCount: a 4.05 M-record spill (115 MB of data and
    metadata) took 605 ns per record against 411–430 ns for a 1.09 M one (30 MB), where
    n·log n alone gives +9%."""
    ratio = np.maximum(working_set / cache_bytes, 1.0)
    return 1.0 + slowdown * np.log2(ratio)


def overlap_coefficients(
    n_full: F64,
    r_full: F64,
    r_last: F64,
    out_recs: F64,
    spill_percent: F64,
    headroom: F64 | None = None,
    end: F64 | None = None,
    head: F64 | None = None,
) -> tuple[F64, F64, F64, F64]:
    """Cost-independent coefficients of :func:`hidden_spill_ns`: the numbers of middle and
    last background spills, and the headroom records (during a middle spill, and during the
    last one) as shares of the map's output records. ``headroom`` is ``1 − spill%``,
    ``end`` is ``n_full ≥ 1`` as 0.0/1.0 and ``head`` the headroom records ``r_full ·
    (1 − spill%) / spill%`` when the caller has them (the map task's
    :class:`~mrtune.costmodel._map_inputs.MapInputs`, ``MapWork.merging_f`` and
    :func:`full_spill`)."""
    if head is None:
        p = np.asarray(spill_percent, dtype=np.float64)
        head = r_full * (1.0 - p if headroom is None else headroom)
        head /= p
    inv = quotient(1.0, out_recs)
    mid = n_full - 1.0
    at_least(mid, 0.0, out=mid)
    if end is None:
        end = (n_full >= 1.0).astype(np.float64)
    last = np.minimum(head, r_last)
    last *= inv
    return mid, end, head * inv, last


def blocked_ns(s_full: F64, overlap_work: F64, contention: float | F64) -> F64:
    """How long the map thread waits for one background spill of ``s_full`` (its time alone)
    while it has ``overlap_work`` of collecting to do in the buffer's headroom.

    The two threads share the machine: while both run, the spill is slowed by ``contention``
    × the time they overlap, ``min(s_full, overlap_work)`` (0: a free core, full speed;
    1: no gain, as if serial; above 1, running both at once is slower than one after the
    other). The map thread waits for what is left after its own work.
    """
    if not nonzero(contention):
        # s_full + 0·overlap is s_full (the overlap is finite): the free-core case, one pass
        waited = s_full - overlap_work
    else:
        overlap = np.minimum(s_full, overlap_work)
        waited = s_full + contention * overlap
        waited -= overlap_work
    return at_least(waited, 0.0, out=waited)


def hidden_spill_ns(
    work: F64,
    spill_ns: F64,
    last_ns: F64,
    n_full: F64,
    r_full: F64,
    r_last: F64,
    out_recs: F64,
    spill_percent: F64,
    contention: float | F64 = 0.0,
    headroom: F64 | None = None,
    end: F64 | None = None,
    head: F64 | None = None,
) -> F64:
    """Spill time hidden behind the map function when the spill thread has a core.

    ``MapOutputBuffer``: a spill starts when the buffer reaches its soft limit (``k`` =
    records per full spill); the ``SpillThread`` sorts and writes it while the map thread
    collects into the free rest of the buffer, ``(1 − spill%)/spill% · k`` records of
    headroom, and blocks (``collect`` waits on ``spillDone``) once that is full. The final
    spill is made by the map thread in ``flush``, after waiting for the one in progress.
    With map-thread work ``m`` per output record and a full spill taking ``S``, each middle
    background spill blocks the map thread ``max(0, S − headroom·m)``, and the last one
    ``max(0, S − min(headroom, r_last)·m)`` (the flush waits for it); the rest of the
    ``n_full·S`` background time is hidden (negative: added, with ``contention`` above 1).
    ``contention`` (:func:`blocked_ns`) takes back that share of the overlap. Reference §2.3 (and Starfish) treat the phases as serial,
    which is right when every core runs a task (``contention`` = 1 gives the same). Measured
    on WordCount in local mode: a 2.1 s spill of 2.97 M records blocked the map thread
    1.86 s, leaving 0.24 s (0.74 M records of headroom) hidden.
    """
    mid, end, head_share, last_share = overlap_coefficients(
        n_full, r_full, r_last, out_recs, spill_percent, headroom, end, head
    )
    # S per full spill; a row without full spills (n_full = 0: mid = end = 0) adds 0·S to
    # every term below, so any finite S does there: n_full is raised to 1 rather than a
    # quotient's masked 0 (with one spill, spill_ns − last_ns is 0 in any case)
    s_full = spill_ns - last_ns
    s_full /= at_least(n_full, 1.0)
    head_share *= work
    last_share *= work
    blocked = mid * blocked_ns(s_full, head_share, contention)
    blocked += end * blocked_ns(s_full, last_share, contention)
    hidden = n_full * s_full
    hidden -= blocked
    # With contention ≤ 1 the map thread never waits longer than the spills took, so a
    # negative here is only the rounding of n_full·S − (mid + end)·S (mid + end = n_full, e.g.
    # −4.8e-13 ns): it is 0. Above 1 a negative is real (the overlap is slower than serial).
    if isinstance(contention, np.ndarray):
        return np.where(contention <= 1.0, np.maximum(hidden, 0.0), hidden)
    return at_least(hidden, 0.0, out=hidden) if contention <= 1.0 else hidden


def _combining(x: F64, mi: MapInputs) -> F64:
    """``np.where(mi.combining, x, 0.0)`` as ``x · combining`` for a finite ``x`` (``x`` itself
    when every row combines: ``x · 1.0`` is ``x``)."""
    if mi.all_combining:
        return x
    x *= mi.combining_f
    return x


@dataclass(slots=True)
class SpillOf:
    """What one spill of ``r`` records writes and costs (§2.3): its records after the
    combiner, IFile bytes (uncompressed and on disk) and sort comparisons."""

    r: F64
    c: F64
    u: F64
    d: F64
    cmp: F64
    #: records the map collects into the buffer's headroom while it is written in the
    #: background, ``r · (1 − spill%) / spill%`` (:func:`overlap_coefficients`; full spills)
    head: F64 | None = None


def spill_of(r: F64, w: MapWork, profile: JobProfile | StackedProfiles, mi: MapInputs) -> SpillOf:
    """One spill of ``r`` records: ``combine_keys`` where the combiner runs, the width of a
    combined record from how many raw records it merged (its merge factor), ``ifile_bytes``
    and ``on_disk_bytes`` with their per-configuration terms computed once, and the sort's
    comparisons (slower once records and metadata outgrow the caches)."""
    c = if_combining(mi, combine_keys(r, r, profile), r) if mi.any_combining else r
    wr = mi.w_rec
    if mi.any_combining:
        ovh = profile.stats.ifile_record_overhead
        wr = if_combining(mi, combine_width(r, c, profile, mi) + ovh, mi.w_rec)
    u = fma(c, wr, mi.eof_parts)
    cmp = _comparisons(r, mi.parts)
    if nonzero(w.slowdown):
        row = mi.width + METADATA_BYTES
        cmp = cmp * _cache_factor(r * row, profile.costs.sort_cache_bytes, w.slowdown)
    return SpillOf(r, c, u, fma(u, mi.ratio, mi.chk_parts), cmp)


def full_spill(w: MapWork, profile: JobProfile | StackedProfiles, mi: MapInputs) -> SpillOf:
    """A full spill: the sort buffer's ``records_per_spill`` records, the same in every map
    task of the batch (made once per :class:`MapInputs` and profile, kept on ``mi``).

    A task whose output fills the buffer at least once more than its last spill (``n_full``
    ≥ 1, so output > records per spill) spills exactly that; one that does not (0 or 1
    spill) multiplies every full-spill term by ``n_full`` = 0, or by ``a`` = 0 and the
    overlap's ``mid`` = ``end`` = 0, so its value there, finite, changes no number: the full
    and tail tasks share one full spill.
    """
    hit = getattr(mi, "_full_spill", None)
    if hit is not None and hit[0] is profile and hit[1] == w.local_mode:
        return hit[2]
    full = spill_of(mi.per_spill, w, profile, mi)
    full.head = mi.per_spill * mi.headroom
    full.head /= mi.spill_percent
    mi._full_spill = (profile, w.local_mode, full)  # type: ignore[attr-defined]
    return full


def spill_dataflow(w: MapWork, profile: JobProfile | StackedProfiles, mi: MapInputs) -> None:
    """Collect and Spill's dataflow (§2.3, §8.1): spills, records and IFile bytes of the full
    spills (:func:`full_spill`) and of the last one (:func:`spill_of`), and the sort
    comparisons."""
    out_recs, per_spill = w.out_recs, mi.per_spill
    no_spill = out_recs <= 0
    if mi.any_map_only:
        no_spill |= mi.map_only
    w.any_no_spill = any_no_spill = bool(no_spill.any())
    spills = np.ceil(out_recs / per_spill)
    if any_no_spill:
        spills = np.where(no_spill, 0.0, spills)
    sm1 = spills - 1.0
    r_last = sm1 * per_spill
    np.subtract(out_recs, r_last, out=r_last)
    if any_no_spill:
        r_last = np.where(spills > 0, r_last, 0.0)
    full, last = full_spill(w, profile, mi), spill_of(r_last, w, profile, mi)
    w.u_full, w.u_last, w.d_full, w.d_last = full.u, last.u, full.d, last.d
    w.n_full = n_full = at_least(sm1, 0.0, out=sm1)
    # spills > 1 as 0.0/1.0 (n_full is a whole number ≥ 0): the merge's and the overlap's flag
    w.merging_f = at_most(n_full, 1.0)
    spill_recs_written = fma(n_full, full.c, last.c)
    spill_bytes_written = fma(n_full, full.d, last.d)
    spill_u_written = fma(n_full, full.u, last.u)
    cmp_last = last.cmp
    sorted_cmp = fma(n_full, full.cmp, cmp_last)
    if any_no_spill:
        spill_recs_written = np.where(spills > 0, spill_recs_written, 0.0)
        spill_bytes_written = np.where(spills > 0, spill_bytes_written, 0.0)
        spill_u_written = np.where(spills > 0, spill_u_written, 0.0)
        sorted_cmp = np.where(spills > 0, sorted_cmp, 0.0)
    w.spills, w.r_full, w.r_last, w.c_full, w.c_last = spills, per_spill, r_last, full.c, last.c
    w.spill_recs_written, w.spill_bytes_written = spill_recs_written, spill_bytes_written
    w.spill_u_written, w.cmp_last, w.sorted_cmp = spill_u_written, cmp_last, sorted_cmp


def _combine_ns(recs: F64, c: Any, mi: MapInputs) -> F64:  # noqa: ANN401 - CostFactors or stacked
    """The spill combiner's CPU over ``recs`` raw map output records, 0 where no combiner
    runs (``× combining``): per record, and per byte where the profile prices it (the
    combiner deserializes every byte of the records it is given)."""
    ns = recs * c.combine_cpu
    if nonzero(c.combine_byte_cpu):
        ns = ns + recs * mi.width * c.combine_byte_cpu
    return _combining(ns, mi)


def spill_costs(
    w: MapWork,
    profile: JobProfile | StackedProfiles,
    batch: ConfigBatch,
    mi: MapInputs,
    spill_overlap: bool,
) -> None:
    """Collect and Spill's costs (§2.3): CPU and I/O of all spills, the final spill alone,
    and (``spill_overlap``) the background spills' overlap with the map thread.

    With ``spill_overlap`` (Hadoop's ``SpillThread``, on every cluster type) the ``spill``
    phase is the final spill (made by the map thread in ``flush``) and the time the map
    thread waited on a running spill, because the buffer's headroom filled, is booked as
    ``collect``: ``MapOutputBuffer.collect`` blocks on ``spillDone`` there, and a task log's
    or a phase table's collect holds it (issue 20: 3.3 s of collect on Ceesay et al.'s
    cluster). The rest of the background spills is hidden behind the map function.
    """
    c = profile.costs
    out_recs, spills = w.out_recs, w.spills
    collect_cpu = out_recs * (c.partition_cpu + c.serde_cpu)
    if nonzero(c.serde_byte_cpu):
        # the serializers' per-byte work (MapOutputBuffer.Buffer.write into kvbuffer)
        collect_cpu = collect_cpu + w.out_bytes * c.serde_byte_cpu
    if mi.any_map_only:
        collect_cpu = np.where(mi.map_only, 0.0, collect_cpu)
    spill_cpu = w.sorted_cmp * c.sort_cpu
    if mi.any_combining:
        spill_cpu += _combine_ns(out_recs, c, mi)
    spill_cpu += w.spill_u_written * mi.comp_ns
    spill_io = w.spill_bytes_written * c.spill_write
    if nonzero(c.spill_file_ns):
        spill_io = spill_io + spills * c.spill_file_ns
    # the final spill alone (made by the map thread in flush): sort, combine, compress, write
    last_io = w.d_last * c.spill_write + c.spill_file_ns
    last_cpu = w.cmp_last * c.sort_cpu
    if mi.any_combining:
        last_cpu += _combine_ns(w.r_last, c, mi)
    last_cpu += w.u_last * mi.comp_ns
    if w.any_no_spill:
        last_io = np.where(spills > 0, last_io, 0.0)
        last_cpu = np.where(spills > 0, last_cpu, 0.0)
    last_ns = last_cpu + last_io
    hidden_ns: F64 | float = 0.0
    collect_io: F64 | None = None
    if spill_overlap:
        work = w.read_io + w.map_cpu + collect_cpu
        if w.read_cpu is not None:
            work = work + w.read_cpu
        spill_ns = spill_cpu + spill_io
        hidden_ns = hidden_spill_ns(
            work,
            spill_ns,
            last_ns,
            w.n_full,
            w.r_full,
            w.r_last,
            out_recs,
            batch.spill_percent,
            w.contention,
            mi.headroom,
            w.merging_f,
            full_spill(w, profile, mi).head,
        )
        # the background spills' time the map thread waited for, split into the spills'
        # I/O and CPU pro rata, moves to collect; the spill phase keeps the final spill
        bg_cpu = spill_cpu - last_cpu
        bg_io = spill_io - last_io
        bg = bg_cpu + bg_io
        blocked = bg - hidden_ns
        share = quotient(blocked, bg)
        collect_cpu = collect_cpu + bg_cpu * share
        collect_io = bg_io * share
        spill_cpu, spill_io = last_cpu, last_io
    w.collect_cpu, w.collect_io, w.spill_cpu, w.spill_io = (
        collect_cpu,
        collect_io,
        spill_cpu,
        spill_io,
    )
    w.last_ns, w.hidden_ns = last_ns, hidden_ns
