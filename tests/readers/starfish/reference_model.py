"""The reference's Hadoop 1 task equations, written out independently of ``mrtune.costmodel``.

This module restates cost-model-reference.md §2 (map task, Hadoop 1 buffer with
``io.sort.record.percent``), §2.4/§3 (merges) and §4 (reduce task) in plain Python floats. The
fixture generator uses it to write the ``<timings>`` and counters of the Starfish-format test
profiles, and the tests compare mrtune's Hadoop 1 what-if with it. It must not import
``mrtune.costmodel``: it is the yardstick.

Conventions (reference §0): sizes in bytes, costs in ns per byte or per record, phase times in
ms (ns / 1e6). Where the reference lists a Starfish implementation detail next to the report's
equation, :class:`Quirks` selects which one to follow; the defaults are the ones mrtune is
expected to reproduce:

* ``spill_content="average"``: every spill holds ``round(outMapPairs / numSpills)`` records
  (Starfish, §2.3). ``"full"`` is the report's form (every spill a full buffer), which
  over-counts the last spill.
* ``sort_log="log2"``: ``n·log2(max(2, n/R))`` comparisons, the base Starfish *profiles* with
  (Table 3, DESIGN decision 3). ``"starfish_ln"`` is what Starfish *predicts* with:
  ``outMapPairs·ln(max(10, avg/R))``.
* ``drop_evicted=False``: evicted in-memory segments that stay in memory for the final merge
  are counted in the reduce input (§4.2, the corrected bookkeeping). ``True`` reproduces
  Starfish's bug of dropping them.
* ``shuffle_merges="closed_form"``: on-disk merges during the shuffle by the report's count
  ``1 + floor((files − 2F + 1) / F)`` (§4.1, "F arrivals, no re-merge"). ``"simulated"``
  replays Hadoop 1's ``LocalFSMerger`` as §7 describes it: after each file arrives, while
  2F − 1 or more files are on disk, the F smallest are merged into one, which is put back.

The combiner follows the report's plain product (§2.3, §2.4, §4.1).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

MB = 2**20
NS_PER_MS = 1e6


@dataclass(frozen=True)
class RefConf:
    """Reference Table 1 parameters (Hadoop 1 names in comments)."""

    sort_mb: float = 100  # io.sort.mb
    spill_perc: float = 0.8  # io.sort.spill.percent
    rec_perc: float = 0.05  # io.sort.record.percent
    sort_factor: int = 10  # io.sort.factor
    min_spills_comb: int = 3  # min.num.spills.for.combine
    task_mem: float = 200 * MB  # -Xmx of mapred.child.java.opts
    num_reducers: int = 1  # mapred.reduce.tasks
    shuffle_in_perc: float = 0.70  # mapred.job.shuffle.input.buffer.percent
    shuffle_merge_perc: float = 0.66  # mapred.job.shuffle.merge.percent
    inmem_thr: int = 1000  # mapred.inmem.merge.threshold
    reducer_in_perc: float = 0.0  # mapred.job.reduce.input.buffer.percent
    use_combine: bool = False
    interm_compressed: bool = False  # mapred.compress.map.output
    out_compressed: bool = False  # mapred.output.compress


@dataclass(frozen=True)
class RefStats:
    """Reference Table 2."""

    input_pair_width: float = 100.0
    map_size_sel: float = 1.0
    map_pairs_sel: float = 1.0
    reduce_size_sel: float = 1.0
    reduce_pairs_sel: float = 1.0
    reduce_pairs_per_group: float = 1.0
    combine_size_sel: float = 1.0
    combine_pairs_sel: float = 1.0
    input_compress_ratio: float = 1.0
    interm_compress_ratio: float = 1.0
    out_compress_ratio: float = 1.0


@dataclass(frozen=True)
class RefCosts:
    """Reference Table 3 (ns per byte or per record)."""

    hdfs_read: float
    hdfs_write: float
    local_read: float
    local_write: float
    network: float
    map_cpu: float
    reduce_cpu: float
    combine_cpu: float
    partition_cpu: float
    serde_cpu: float
    sort_cpu: float
    merge_cpu: float
    in_uncompr: float
    interm_uncompr: float
    interm_compr: float
    out_compr: float


@dataclass(frozen=True)
class Quirks:
    spill_content: str = "average"
    sort_log: str = "log2"
    drop_evicted: bool = False
    shuffle_merges: str = "closed_form"


@dataclass
class RefTask:
    """Phase times (ms) and Starfish-style counters of one task."""

    phases_ms: dict[str, float]
    counters: dict[str, float]
    detail: dict[str, float] = field(default_factory=dict)


# ----------------------------------------------------------------------------- merges (§2.4, §3)
def calc_first_pass(n: int, f: int) -> int:
    if n <= f:
        return n
    if (n - 1) % (f - 1) == 0:
        return f
    return (n - 1) % (f - 1) + 1


def calc_interm_merge(n: int, f: int) -> int:
    if n <= f:
        return 0
    p = calc_first_pass(n, f)
    return p + ((n - p) // f) * f


def calc_merge_passes(n: int, f: int) -> int:
    if n <= 1:
        return 0
    if n <= f:
        return 1
    return 2 + (n - calc_first_pass(n, f)) // f


def simulate_merge(
    disk: list[tuple[float, float]], f: int, in_mem: list[tuple[float, float]]
) -> dict[str, float]:
    """§3.2's simulator: intermediate passes only; the final pass is reported, not written.

    Returns bytes read from disk and bytes/records written by intermediate passes, and the
    disk bytes/records the final pass reads (what the consumer streams).
    """
    q = sorted(disk)
    read = written = written_recs = 0.0
    passes = 0
    pass_no = 1
    while True:
        n = len(q)
        if pass_no > 1 or n <= f or f == 1:
            pf = f
        else:
            mod = (n - 1) % (f - 1)
            pf = f if mod == 0 else mod + 1
        mem = in_mem if pass_no == 1 else []
        if n <= pf:
            return {
                "interm_read": read,
                "interm_written": written,
                "interm_written_recs": written_recs,
                "final_disk_bytes": sum(s for s, _ in q),
                "final_disk_recs": sum(r for _, r in q),
                "passes": passes + (1 if n + len(mem) > 1 else 0),
            }
        take, q = q[:pf], q[pf:]
        size = sum(s for s, _ in take) + sum(s for s, _ in mem)
        recs = sum(r for _, r in take) + sum(r for _, r in mem)
        read += sum(s for s, _ in take)
        written += size
        written_recs += recs
        bisect.insort(q, (size, recs))
        passes += 1
        pass_no += 1


# ----------------------------------------------------------------------------- map task (§2)
def reference_map(
    split_bytes: float,
    input_compressed: bool,
    conf: RefConf,
    st: RefStats,
    c: RefCosts,
    quirks: Quirks = Quirks(),
) -> RefTask:
    cmp_in = st.input_compress_ratio if input_compressed else 1.0
    cmp_i = st.interm_compress_ratio if conf.interm_compressed else 1.0
    comb = conf.use_combine
    # §2.1 Read
    in_size = split_bytes / cmp_in
    in_pairs = in_size / st.input_pair_width
    read = split_bytes * c.hdfs_read + (split_bytes * c.in_uncompr if input_compressed else 0.0)
    # §2.2 Map
    out_size = in_size * st.map_size_sel
    out_pairs = in_pairs * st.map_pairs_sel
    width = out_size / out_pairs
    map_ns = in_pairs * c.map_cpu
    # §2.3 Collect and Spill, Hadoop 1 buffer
    max_ser = math.floor(conf.sort_mb * MB * (1 - conf.rec_perc) * conf.spill_perc / width)
    max_acc = math.floor(conf.sort_mb * MB * conf.rec_perc * conf.spill_perc / 16)
    sbp_full = min(max_ser, max_acc, out_pairs)
    n = math.ceil(out_pairs / sbp_full)
    sbp = round(out_pairs / n) if quirks.spill_content == "average" else sbp_full
    sbs = sbp * width
    sf_pairs = sbp * (st.combine_pairs_sel if comb else 1.0)
    sf_size = sbs * (st.combine_size_sel if comb else 1.0) * cmp_i
    collect = out_pairs * (c.partition_cpu + c.serde_cpu)
    if quirks.sort_log == "log2":
        sort_ns = n * sbp * math.log2(max(2.0, sbp / conf.num_reducers)) * c.sort_cpu
    else:
        sort_ns = out_pairs * math.log(max(10.0, sbp / conf.num_reducers)) * c.sort_cpu
    spill = (
        sort_ns
        + (n * sbp * c.combine_cpu if comb else 0.0)
        + (
            n * sbs * (st.combine_size_sel if comb else 1.0) * c.interm_compr
            if conf.interm_compressed
            else 0.0
        )
        + n * sf_size * c.local_write
    )
    # §2.4 Merge
    f = conf.sort_factor
    if n == 1:
        merge = 0.0
        interm_size, interm_pairs = sf_size, sf_pairs
        s = passes = 0
        read_m = written_m = merged = 0.0
    else:
        if n <= f * f:
            s = calc_interm_merge(n, f)
            passes = calc_merge_passes(n, f)
        else:
            sim = simulate_merge([(1.0, 1.0)] * n, f, [])
            s, passes = int(sim["interm_read"]), int(sim["passes"])
        use_comb = comb and n >= conf.min_spills_comb
        interm_size = n * sf_size * (st.combine_size_sel if use_comb else 1.0)
        interm_pairs = n * sf_pairs * (st.combine_pairs_sel if use_comb else 1.0)
        read_m = (s + n) * sf_size
        written_m = s * sf_size + interm_size
        merged = (s + n) * sf_pairs
        merge = (
            read_m * c.local_read
            + written_m * c.local_write
            + merged * c.merge_cpu
            + (n * sf_pairs * c.combine_cpu if use_comb else 0.0)
            + (
                read_m * c.interm_uncompr + written_m / cmp_i * c.interm_compr
                if conf.interm_compressed
                else 0.0
            )
        )
    spilled = n * sf_pairs + (s * sf_pairs + interm_pairs if n > 1 else 0.0)
    counters = {
        "MAP_INPUT_RECORDS": in_pairs,
        "MAP_INPUT_BYTES": in_size,
        "MAP_OUTPUT_RECORDS": out_pairs,
        "MAP_OUTPUT_BYTES": out_size,
        "MAP_NUM_SPILLS": float(n),
        "MAP_NUM_SPILL_MERGES": float(passes),
        "MAP_RECS_PER_BUFF_SPILL": float(sbp),
        "MAP_SPILL_SIZE": sf_size,
        "SPILLED_RECORDS": spilled,
        "FILE_BYTES_READ": read_m,
        "FILE_BYTES_WRITTEN": n * sf_size + written_m,
        "HDFS_BYTES_READ": split_bytes,
    }
    if comb:
        counters["COMBINE_INPUT_RECORDS"] = out_pairs + (
            n * sf_pairs if n > 1 and n >= conf.min_spills_comb else 0.0
        )
        counters["COMBINE_OUTPUT_RECORDS"] = n * sf_pairs + (
            interm_pairs if n > 1 and n >= conf.min_spills_comb else 0.0
        )
    phases = {"read": read, "map": map_ns, "collect": collect, "spill": spill, "merge": merge}
    return RefTask(
        phases_ms={k: v / NS_PER_MS for k, v in phases.items()},
        counters=counters,
        detail={"interm_size": interm_size, "interm_pairs": interm_pairs, "spills": float(n)},
    )


# ----------------------------------------------------------------------------- reduce task (§4)
def reference_reduce(
    num_maps: int,
    interm_size: float,
    interm_pairs: float,
    conf: RefConf,
    st: RefStats,
    c: RefCosts,
    quirks: Quirks = Quirks(),
) -> RefTask:
    r = conf.num_reducers
    f = conf.sort_factor
    comb = conf.use_combine
    icomp = conf.interm_compressed
    cmp_i = st.interm_compress_ratio if icomp else 1.0
    cmp_out = st.out_compress_ratio if conf.out_compressed else 1.0
    # §4.1 Shuffle
    seg_c = interm_size / r
    seg_u = seg_c / cmp_i
    seg_p = interm_pairs / r
    total_shuffle = num_maps * seg_c
    buf = conf.shuffle_in_perc * conf.task_mem
    thr = conf.shuffle_merge_perc * buf
    case1 = seg_u < 0.25 * buf
    if case1:
        k = thr / seg_u
        k = math.ceil(k) if math.ceil(k) * seg_u <= buf else math.floor(k)
        k = min(k, conf.inmem_thr)
        sf_size = k * seg_c * (st.combine_size_sel if comb else 1.0)
        sf_pairs = k * seg_p * (st.combine_pairs_sel if comb else 1.0)
        n_sf = num_maps // k
        in_mem = num_maps % k
    else:
        k, sf_size, sf_pairs, n_sf, in_mem = 1, seg_c, seg_p, num_maps, 0
    inmem_recs = n_sf * k * seg_p if case1 else 0.0
    if quirks.shuffle_merges == "closed_form":
        merges = 0 if n_sf < 2 * f - 1 else 1 + (n_sf - 2 * f + 1) // f
        m_size, m_pairs = f * sf_size, f * sf_pairs
        unmerged = n_sf - f * merges
        disk_files = [(m_size, m_pairs)] * merges + [(sf_size, sf_pairs)] * unmerged
        merged_bytes, merged_pairs = merges * m_size, merges * m_pairs
    else:
        disk_files = []
        merges = 0
        merged_bytes = merged_pairs = 0.0
        for _ in range(n_sf):
            bisect.insort(disk_files, (sf_size, sf_pairs))
            while len(disk_files) >= 2 * f - 1:
                take, disk_files = disk_files[:f], disk_files[f:]
                merged = (sum(x for x, _ in take), sum(p for _, p in take))
                merges += 1
                merged_bytes += merged[0]
                merged_pairs += merged[1]
                bisect.insort(disk_files, merged)
    merged_recs_sh = inmem_recs + merged_pairs
    read_sh = merged_bytes
    written_sh = n_sf * sf_size + merged_bytes
    shuffle = (
        total_shuffle * c.network
        + read_sh * c.local_read
        + written_sh * c.local_write
        + (total_shuffle * c.interm_uncompr if icomp else 0.0)
        + merged_recs_sh * c.merge_cpu
        + (inmem_recs * c.combine_cpu if comb else 0.0)
        + (read_sh * c.interm_uncompr + written_sh / cmp_i * c.interm_compr if icomp else 0.0)
    )
    # §4.2 step 1: evict to reduce.input.buffer.percent
    max_seg_buf = conf.reducer_in_perc * conf.task_mem
    cur = in_mem * seg_u
    # Never more than the segments in memory: ``(15·u)/u`` can round to 15.000000000000002, and a
    # plain ceil then evicted a 16th segment that does not exist (a 6% merge-time error).
    evicted = (
        min(in_mem, math.ceil((cur - max_seg_buf) / seg_u - 1e-9)) if cur > max_seg_buf else 0
    )
    remain = in_mem - evicted
    on_disk = len(disk_files)
    if evicted > 0 and on_disk < f:
        from_mem = [(evicted * seg_c, evicted * seg_p)]
        s1_w, s1_r = evicted * seg_c, evicted * seg_p
        ev_in_mem: list[tuple[float, float]] = []
    else:
        from_mem = []
        s1_w = s1_r = 0.0
        ev_in_mem = [(seg_c, seg_p)] * evicted
    # step 2: intermediate merges, only if more than F disk files
    files = disk_files + from_mem
    if len(files) > f:
        sim = simulate_merge(files, f, ev_in_mem)
        s2_r, s2_w, s2_recs = sim["interm_read"], sim["interm_written"], sim["interm_written_recs"]
        ev_on_disk = bool(ev_in_mem)  # merged into an intermediate file by pass 1
    else:
        s2_r = s2_w = s2_recs = 0.0
        ev_on_disk = False
    # step 3: the final merge streams into reduce()
    red_disk_size = sum(s for s, _ in files)
    red_disk_pairs = sum(p for _, p in files)
    ev_size, ev_pairs = evicted * seg_c, evicted * seg_p
    mem_size, mem_pairs = remain * seg_c, remain * seg_p
    if ev_in_mem and not quirks.drop_evicted:
        if ev_on_disk:
            red_disk_size += ev_size
            red_disk_pairs += ev_pairs
        else:
            mem_size += ev_size
            mem_pairs += ev_pairs
    sort = (
        s2_r * c.local_read
        + (s1_w + s2_w) * c.local_write
        + (s1_r + s2_recs) * c.merge_cpu
        + (s2_r * c.interm_uncompr + (s1_w + s2_w) / cmp_i * c.interm_compr if icomp else 0.0)
    )
    # §4.3 Reduce and §4.4 Write
    in_red_size = (red_disk_size + mem_size) / cmp_i
    in_red_pairs = red_disk_pairs + mem_pairs
    out_size = in_red_size * st.reduce_size_sel
    out_pairs = in_red_pairs * st.reduce_pairs_sel
    reduce = red_disk_size * c.local_read + in_red_pairs * c.reduce_cpu
    hdfs_w = out_size * cmp_out
    write = hdfs_w * c.hdfs_write + (out_size * c.out_compr if conf.out_compressed else 0.0)
    counters = {
        "REDUCE_SHUFFLE_BYTES": total_shuffle,
        "REDUCE_INPUT_GROUPS": in_red_pairs / st.reduce_pairs_per_group,
        "REDUCE_INPUT_RECORDS": in_red_pairs,
        "REDUCE_INPUT_BYTES": in_red_size,
        "REDUCE_OUTPUT_RECORDS": out_pairs,
        "REDUCE_OUTPUT_BYTES": out_size,
        "HDFS_BYTES_WRITTEN": hdfs_w,
        "FILE_BYTES_READ": read_sh + s2_r + red_disk_size,
        "FILE_BYTES_WRITTEN": written_sh + s1_w + s2_w,
        "SPILLED_RECORDS": n_sf * sf_pairs + merged_pairs + s1_r + s2_recs,
    }
    if comb and case1:
        counters["COMBINE_INPUT_RECORDS"] = inmem_recs
        counters["COMBINE_OUTPUT_RECORDS"] = n_sf * sf_pairs
    phases = {"shuffle": shuffle, "merge": sort, "reduce": reduce, "write": write}
    return RefTask(
        phases_ms={k: v / NS_PER_MS for k, v in phases.items()},
        counters=counters,
        detail={
            "case1": float(case1),
            "segments_per_shuffle_file": float(k),
            "shuffle_files": float(n_sf),
            "evicted": float(evicted),
            "remain_in_memory": float(remain),
            "reduce_disk_bytes": red_disk_size,
            "reduce_pairs": in_red_pairs,
        },
    )


def reference_job(
    split_bytes: float,
    num_maps: int,
    input_compressed: bool,
    conf: RefConf,
    st: RefStats,
    c: RefCosts,
    quirks: Quirks = Quirks(),
) -> tuple[RefTask, RefTask]:
    """One map task (all maps are alike) and one reduce task."""
    m = reference_map(split_bytes, input_compressed, conf, st, c, quirks)
    r = reference_reduce(
        num_maps, m.detail["interm_size"], m.detail["interm_pairs"], conf, st, c, quirks
    )
    return m, r
