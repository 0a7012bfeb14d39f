"""``JobProfile``: what the model knows about one job (reference Tables 2 and 3).

A profile holds the job's dataflow statistics (Table 2), its cost factors in nanoseconds per
byte or per record (Table 3), its input, and per-codec compression statistics. Every number
records whether it was *measured* from the job's history or *defaulted* (and why) in
:attr:`JobProfile.provenance`, so a user can tell a calibrated prediction from a guess.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mrtune.costmodel.properties import CODEC_CLASSES

CodecName = Literal["default", "gzip", "bzip2", "snappy", "lz4", "zstd", "lzo", "lzop", "unknown"]


class CodecStats(BaseModel):
    """Compression ratio (compressed ÷ uncompressed) and CPU cost of one codec for this job's data."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ratio: float = Field(gt=0, le=1.5, description="compressed size / uncompressed size")
    compress_ns_per_byte: float = Field(ge=0, description="ns per uncompressed byte")
    uncompress_ns_per_byte: float = Field(ge=0, description="ns per compressed byte")
    source: str = Field("prior", description="'measured: …' or 'prior: …'")
    ratio_uncombined: float | None = Field(
        None,
        gt=0,
        le=1.5,
        description="the ratio on the map output as emitted, for a configuration that runs "
        "without the job's combiner (raw WordCount pairs compress far better than combined "
        "counts); None: the same as ratio. Measured by the codec probe (its 'emitted' stage)",
    )
    reduce_compress_ns_per_byte: float | None = Field(
        None,
        ge=0,
        description="the reduce task's compress cost, when measured apart from the map's "
        "(Starfish's reduce-profile INTERM_COMPRESS_CPU_COST); None: the same as the map's",
    )
    reduce_uncompress_ns_per_byte: float | None = Field(
        None,
        ge=0,
        description="the reduce task's uncompress cost (shuffle and merges), when measured "
        "apart (INTERM_UNCOMPRESS_CPU_COST of Starfish's reduce profile); None: the map's",
    )

    @property
    def reduce_side(self) -> bool:
        """Whether the reduce task's CPU costs for this codec differ from the map task's."""
        return (
            self.reduce_compress_ns_per_byte is not None
            or self.reduce_uncompress_ns_per_byte is not None
        )

    def reduce_costs(self) -> tuple[float, float]:
        """``(compress, uncompress)`` ns per byte as the reduce task pays them."""
        c, u = self.reduce_compress_ns_per_byte, self.reduce_uncompress_ns_per_byte
        return (
            self.compress_ns_per_byte if c is None else c,
            self.uncompress_ns_per_byte if u is None else u,
        )


#: Documented priors used when a profile has no measurement for a codec. Ratios are typical for
#: text-like MapReduce intermediate data; CPU costs are single-core throughputs of the Java / JNI
#: codecs Hadoop uses. Sources: the lzbench and Squash compression benchmarks (zlib level 6,
#: bzip2 -9, snappy, lz4 fast, zstd level 1–3 on the Silesia corpus: ratios ~0.36/0.26/0.48/0.48/
#: 0.34, compression ~35/14/500/700/450 MB/s, decompression ~380/45/1500/4000/1200 MB/s), divided
#: by ~2 for the JVM stream overheads Hadoop adds (IFile checksums, codec pools, small buffers).
CODEC_PRIORS: dict[str, CodecStats] = {
    "default": CodecStats(
        ratio=0.36,
        compress_ns_per_byte=57.0,
        uncompress_ns_per_byte=5.3,
        source="prior: zlib level 6 (lzbench/Squash, Silesia), JVM overhead x2",
    ),
    "gzip": CodecStats(
        ratio=0.36,
        compress_ns_per_byte=58.0,
        uncompress_ns_per_byte=5.5,
        source="prior: zlib level 6 + gzip header (lzbench/Squash, Silesia), JVM overhead x2",
    ),
    "bzip2": CodecStats(
        ratio=0.26,
        compress_ns_per_byte=143.0,
        uncompress_ns_per_byte=44.0,
        source="prior: bzip2 -9 (lzbench/Squash, Silesia), JVM overhead x2",
    ),
    "snappy": CodecStats(
        ratio=0.48,
        compress_ns_per_byte=4.0,
        uncompress_ns_per_byte=1.3,
        source="prior: snappy (lzbench/Squash, Silesia), snappy-java JNI overhead x2",
    ),
    "lz4": CodecStats(
        ratio=0.48,
        compress_ns_per_byte=2.9,
        uncompress_ns_per_byte=0.5,
        source="prior: lz4 fast (lzbench/Squash, Silesia), lz4-java overhead x2",
    ),
    "zstd": CodecStats(
        ratio=0.34,
        compress_ns_per_byte=4.4,
        uncompress_ns_per_byte=1.7,
        source="prior: zstd level 3 (lzbench/Squash, Silesia), JNI overhead x2",
    ),
    # hadoop-lzo's LzoCodec is liblzo2's lzo1x_1 through JNI. The LZ4 project's Silesia table
    # (Core i5-3340M, one core) gives LZO 2.06: ratio 2.106 (0.475), 414 MB/s compression,
    # 600 MB/s decompression; x2 for the JNI stream overheads, as for the codecs above.
    "lzo": CodecStats(
        ratio=0.48,
        compress_ns_per_byte=4.8,
        uncompress_ns_per_byte=3.3,
        source="prior: LZO 2.06 lzo1x_1 (LZ4 project's Silesia table), hadoop-lzo JNI overhead x2",
    ),
    # LzopCodec is the same lzo1x_1 blocks in lzop framing: a block header and Adler-32
    # checksums of each block (hadoop-lzo LzopOutputStream), ~0.3 ns/B more each way.
    "lzop": CodecStats(
        ratio=0.49,
        compress_ns_per_byte=5.1,
        uncompress_ns_per_byte=3.6,
        source="prior: LZO 2.06 lzo1x_1 + lzop framing and Adler-32 checksums (LZ4 project's "
        "Silesia table), hadoop-lzo JNI overhead x2",
    ),
    # A codec class mrtune does not know. Configured for map output it is almost always a fast
    # LZ-family codec (the usual advice for intermediate data): the slowest CPU and the worst
    # ratio of snappy / lz4 / lzo above, so the guess does not flatter compression.
    "unknown": CodecStats(
        ratio=0.5,
        compress_ns_per_byte=5.0,
        uncompress_ns_per_byte=3.5,
        source="prior: unknown codec class, priced as a fast LZ-family codec (the slowest CPU "
        "and worst ratio of snappy, lz4 and lzo)",
    ),
}


class DataflowStats(BaseModel):
    """Reference Table 2 (dataflow statistics). Defaults are Starfish's (``MRStatistics``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_pair_width: float = Field(100.0, gt=0, description="MAP_INPUT_BYTES / MAP_INPUT_RECORDS")
    split_pair_width: float | None = Field(
        None,
        gt=0,
        description="input bytes per record of the profiled run's full splits (records of "
        "varying width: a split's mean differs from the file's); None: input_pair_width",
    )
    input_record_bytes: float | None = Field(
        None,
        gt=0,
        description="every input record is exactly this many bytes as stored (fixed-width "
        "records, uncompressed), and a split reads the records that start in it: splits "
        "0..j-1 of S bytes hold ceil(j·S / w) records, so the first split of a file holds "
        "ceil(S/w) and the others floor(S/w) or one more (costmodel.map_groups); None: "
        "records of varying width, rint(S / split_pair_width) per full split",
    )
    map_size_sel: float = Field(1.0, ge=0, description="MAP_OUTPUT_BYTES / MAP_INPUT_BYTES")
    map_pairs_sel: float = Field(1.0, ge=0, description="MAP_OUTPUT_RECORDS / MAP_INPUT_RECORDS")
    reduce_size_sel: float = Field(1.0, ge=0, description="reduce output / input bytes")
    reduce_pairs_sel: float = Field(1.0, ge=0, description="reduce output / input records")
    reduce_pairs_per_group: float = Field(1.0, ge=1, description="REDUCE_INPUT_RECORDS / GROUPS")
    combine_pairs_sel: float = Field(
        1.0,
        gt=0,
        le=1,
        description="COMBINE_OUTPUT / COMBINE_INPUT records, at the profiled spill",
    )
    combine_size_sel: float = Field(
        1.0,
        gt=0,
        le=1.5,
        description="combine output / input bytes, at combine_profiled_merge_factor",
    )
    combine_profiled_merge_factor: float = Field(
        1.0,
        ge=1,
        description="raw records merged into one combined record where combine_size_sel was "
        "measured (MAP_OUTPUT_RECORDS / the maps' final records of the profiled run)",
    )
    combine_width_growth: float = Field(
        0.0,
        ge=0,
        le=1e6,
        description="bytes a combined record grows per raw record merged into it "
        "(mrtune.costmodel.combiner.combined_pair_width): 0 for a summing combiner, about "
        "one value's width for a list-building one",
    )
    combine_profiled_input_records: float | None = Field(
        None, gt=0, description="records one combine call saw when combine_pairs_sel was measured"
    )
    combiner_heaps_beta: float = Field(
        0.35,
        gt=0,
        le=1,
        description="exponent of the distinct-keys law D(n) = K n^beta (DESIGN decision 4); "
        "default 0.35, fitted on real WordCount runs over Zipf text: 1.3 M vs 4.9 M combine "
        "outputs at 2 vs 15 spills per map (DESIGN.md) gives 0.34, and 189,958 vs 1,140,529 "
        "at 1 vs 14 spills (this project's runs) 0.32",
    )
    max_distinct_keys: float | None = Field(
        None, gt=0, description="upper bound on distinct map output keys, when known"
    )
    key_vocabulary: float | None = Field(
        None,
        ge=1,
        le=1e12,
        description="distinct keys the map output draws from (i.i.d. Zipf key law, "
        "mrtune.costmodel.combiner.zipf_distinct); with key_zipf_exponent it replaces the Heaps law",
    )
    key_zipf_exponent: float | None = Field(
        None, ge=0, le=5, description="Zipf exponent s of the key frequencies (p_i ∝ i^-s)"
    )
    key_law_scale: float = Field(
        1.0,
        gt=0,
        le=2,
        description="factor on the Zipf key law's expected distinct counts, so that the profiled "
        "run's own combine outputs (one sample of the law) are reproduced exactly",
    )
    key_law_knots: tuple[tuple[float, float], ...] | None = Field(
        None,
        description="(records, factor) points of a factor on the key law, interpolated in log "
        "records (the law itself beyond them): the profiled run's own sample of the law (its spills' "
        "realized distinct counts) reproduced at its own sample sizes "
        "(mrtune.profiling.combine_fit.fit_key_law_knots)",
    )
    key_groups_scale: float = Field(
        1.0,
        ge=0.5,
        le=2,
        description="factor on the key law's distinct keys of a whole job (the reduce's input "
        "groups), so that the profiled run's REDUCE_INPUT_GROUPS is reproduced exactly",
    )
    input_compress_ratio: float = Field(1.0, gt=0, le=1.5, description="HDFS_BYTES_READ / input")
    out_compress_ratio: float | None = Field(
        None, gt=0, le=1.5, description="measured output ratio for the profiled codec, if any"
    )
    ifile_record_overhead: float = Field(
        2.0,
        ge=0,
        le=20,
        description="bytes IFile adds per record (two vint lengths): 2 for keys and values < 128 B",
    )

    @property
    def map_output_pair_width(self) -> float:
        """MAP_OUTPUT_BYTES / MAP_OUTPUT_RECORDS: input pair width × size ÷ pairs selectivity."""
        if self.map_pairs_sel <= 0:
            return 0.0
        return self.input_pair_width * self.map_size_sel / self.map_pairs_sel


#: Factors a profile may measure apart on the reduce side (``CostFactors.reduce_side``): the
#: ones Starfish's ``<map_profile>`` and ``<reduce_profile>`` both carry (READ/WRITE_LOCAL_IO_COST,
#: MERGE_CPU_COST, COMBINE_CPU_COST, and the setup/cleanup timings).
REDUCE_SIDE_FACTORS = (
    "local_read",
    "local_write",
    "merge_cpu",
    "combine_cpu",
    "setup_ms",
    "cleanup_ms",
)

#: CPU factors priced per byte beside a per-record factor (``CostFactors.serde_byte_cpu``,
#: ``combine_byte_cpu``): 0 unless a fit can tell them apart (mrtune.calibration.cost_units).
PER_BYTE_FACTORS = ("serde_byte_cpu", "combine_byte_cpu")

#: Default ``CostFactors.sort_cache_bytes``: the knee of the per-record spill time on local runs.
SORT_CACHE_BYTES = 16 * 2**20


class CostFactors(BaseModel):
    """Reference Table 3: ns per byte (I/O, network) or ns per record (CPU)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hdfs_read: float = Field(20.0, ge=0, description="ns per HDFS byte read")
    hdfs_write: float = Field(60.0, ge=0, description="ns per HDFS byte written (all replicas)")
    local_read: float = Field(8.0, ge=0, description="ns per local-disk byte read")
    local_write: float = Field(12.0, ge=0, description="ns per local-disk byte written")
    network: float = Field(15.0, ge=0, description="ns per shuffled byte")
    map_cpu: float = Field(500.0, ge=0, description="ns per map input record")
    reduce_cpu: float = Field(500.0, ge=0, description="ns per reduce input record")
    combine_cpu: float = Field(300.0, ge=0, description="ns per combiner input record")
    partition_cpu: float = Field(100.0, ge=0, description="ns per map output record")
    serde_cpu: float = Field(200.0, ge=0, description="ns per map output record")
    sort_cpu: float = Field(30.0, ge=0, description="ns per comparison: n·log2(max(2, n/R))")
    merge_cpu: float = Field(60.0, ge=0, description="ns per merged record")
    input_uncompress: float = Field(5.0, ge=0, description="ns per compressed input byte")
    setup_ms: float = Field(0.0, ge=0, description="task setup() time, ms")
    cleanup_ms: float = Field(0.0, ge=0, description="task cleanup() time, ms")
    spill_file_ns: float = Field(
        5e5,
        ge=0,
        description="fixed cost of one spill (file and index creation, sort hand-off), ns; "
        "default 0.5 ms",
    )
    segment_seek_ns: float = Field(
        2e6,
        ge=0,
        description="cost of starting to read one segment in a merge pass (a disk seek and a "
        "read-ahead fill), ns; default 2 ms (HDD seek ~4-8 ms amortised by read-ahead)",
    )
    fetch_ns: float = Field(
        2e6,
        ge=0,
        description="fixed cost of one shuffle fetch (an HTTP request to the shuffle handler "
        "and a seek in the map output file), ns; default 2 ms",
    )
    reduce_includes_final_merge: bool = Field(
        False,
        description="reduce_cpu was measured on the final-merge + reduce() loop (Starfish's "
        "REDUCE_CPU_COST), so the final merge's CPU is not charged again",
    )
    spill_contention: float = Field(
        0.0,
        ge=0,
        le=3,
        description="share of the spill/map overlap lost because the SpillThread shares the "
        "CPU, caches and garbage collector with the map thread: 0 = a free core at full speed, "
        "1 = no gain (serial phases), above 1 = running both threads at once is slower than "
        "one after the other (measured for WordCount's allocation-heavy map and combiner); "
        "used where spills overlap the map function (ClusterSpec.spill_overlap)",
    )
    sort_cache_bytes: float = Field(
        SORT_CACHE_BYTES,
        gt=0,
        description="working set of a spill's sort (records × (pair width + 16 B of metadata)) "
        "above which each comparison slows (caches, TLB); 16 MiB: the knee of the per-record "
        "spill time measured on this project's local runs",
    )
    sort_cache_slowdown: float = Field(
        0.0,
        ge=0,
        le=5,
        description="extra cost of a sort comparison per doubling of the working set above "
        "sort_cache_bytes, as a share of sort_cpu (0: n·log n only, the reference's model)",
    )
    task_overhead_ms: float = Field(
        1000.0,
        ge=0,
        description="per-task fixed time not in any phase (container launch, JVM start, commit), "
        "ms; default ~1 s, a typical YARN container launch; measured from histories "
        "(cluster-type priors: ClusterSpec.cost_priors, local mode ~0: tasks are threads)",
    )
    job_overhead_ms: float = Field(
        0.0,
        ge=0,
        le=86_400_000,
        description="job-level time outside every task, ms: on YARN the MRAppMaster's start, "
        "its first container requests and the job commit (JobImpl setup/commit, "
        "FileOutputCommitter.commitJob); in local mode the driver's submission and commit. "
        "Measured from a history as the job duration (launch→finish) minus the task span; "
        "0 = the task span alone (Starfish's job time). It does not change with the settings "
        "searched, but it is part of the time a user measures, so a speedup without it is "
        "overstated",
    )
    # ---- cluster-scale terms (issue 20). Each defaults to the value that leaves the model as
    # it was (local mode exact); ClusterSpec.cost_priors gives the documented YARN priors.
    read_fixed_ms: float = Field(
        0.0,
        ge=0,
        description="fixed time of a map's read phase, ms: the read intercept (RecordReader "
        "initialize: the NameNode's getBlockLocations, the first DataNode connection and "
        "read-ahead); YARN prior 160 ms (Ceesay et al.'s 8-node cluster, issue 20)",
    )
    spill_write: float = Field(
        12.0,
        ge=0,
        description="ns per spilled byte written (MapTask.MapOutputBuffer.sortAndSpill: the "
        "sort buffer to a spill file), apart from local_write, which prices the merges' and "
        "the shuffle's local writes; when a profile does not give it, local_write's value",
    )
    merge_cmp_cpu: float = Field(
        0.0,
        ge=0,
        description="ns per key comparison of a merge's heap (Merger.MergeQueue, a priority "
        "queue over the segments): N·H(segment shares) comparisons, the information-theoretic "
        "count a balanced merge makes; 0 = Herodotou's per-record merge_cpu only (it absorbs "
        "them on a fit); YARN prior = sort_cpu's default (the same RawComparator)",
    )
    shuffle_floor_ms: float = Field(
        0.0,
        ge=0,
        description="fixed time of a reduce's shuffle, ms (Fetcher threads start, the "
        "EventFetcher's first poll for map completions, ShuffleSchedulerImpl's first copy "
        "assignment); YARN prior 600 ms (0.5–0.7 s floor on Ceesay et al.'s cluster, issue 20)",
    )
    merge_floor_ms: float = Field(
        0.0,
        ge=0,
        description="fixed time of a reduce's merge (sort) phase, ms: the status update that "
        "reports SORT, then MergeManagerImpl.close's finalMerge opening a new local file "
        "(LocalDirAllocator, the checksummed IFile writer) and the merge code's first run in a "
        "fresh task JVM; YARN prior 200 ms (cluster.YARN_COST_PRIORS)",
    )
    commit_ms: float = Field(
        0.0,
        ge=0,
        description="fixed time at the end of a reduce's reduce phase, ms: the output file's "
        "close and Task.commit, which polls canCommit with Thread.sleep(1000) until the AM "
        "grants the commit; YARN prior 1000 ms (one poll; cluster.YARN_COST_PRIORS)",
    )
    # ---- per-byte CPU (issue 20 item 4): the share of a per-record CPU factor's work that
    # scales with the record's bytes. 0 = CPU per record only (the reference's model), which
    # every profile keeps unless its runs vary record widths enough to tell the two apart
    # (mrtune.calibration.cost_units).
    serde_byte_cpu: float = Field(
        0.0,
        ge=0,
        description="ns per map output byte serialized into the sort buffer, beside "
        "serde_cpu per record (MapTask.MapOutputBuffer.collect: the key and value "
        "Serializers write every byte through MapOutputBuffer.Buffer.write into kvbuffer)",
    )
    combine_byte_cpu: float = Field(
        0.0,
        ge=0,
        description="ns per combiner input byte, beside combine_cpu per record (the "
        "combiner's ReduceContextImpl deserializes every key and value byte it is given; a "
        "list-building combiner copies each value into its list)",
    )
    shapes_on_cluster: bool = Field(
        False,
        description="spill_contention and sort_cache_slowdown were measured on a cluster, so "
        "they apply there too; otherwise they are local-mode terms (measured only on "
        "LocalJobRunner) and a YARN prediction leaves them out",
    )
    reduce_side: dict[str, float] = Field(
        default_factory=dict,
        description="reduce-task values of factors measured apart on the two sides (Starfish's "
        "map and reduce profiles both carry local I/O, merge, combine, setup and cleanup "
        "costs); a factor not listed costs the same in both tasks. Only the reduce task reads "
        "them (reduce_value); history fits keep one shared value and leave this empty",
    )

    @field_validator("reduce_side")
    @classmethod
    def _check_reduce_side(cls, v: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(v) - set(REDUCE_SIDE_FACTORS))
        if unknown:
            raise ValueError(
                f"unknown reduce-side factor(s) {unknown}; allowed: {list(REDUCE_SIDE_FACTORS)}"
            )
        bad = [k for k, x in v.items() if not (math.isfinite(x) and x >= 0)]
        if bad:
            raise ValueError(f"reduce-side factor {bad[0]} must be a finite number >= 0")
        return v

    def reduce_value(self, name: str) -> float:
        """The value the reduce task uses: the reduce-side one when the profile measured the
        two sides apart, else the one shared value."""
        return self.reduce_side.get(name, getattr(self, name))

    def for_reduce(self) -> CostFactors:
        """These factors as the reduce task reads them (itself when nothing is overridden,
        so a profile without overrides predicts bit for bit as before)."""
        if not self.reduce_side:
            return self
        return self.model_copy(update=self.reduce_side)

    def with_factors(self, values: dict[str, float]) -> CostFactors:
        """A copy with ``values`` set, each reduce-side override moved by the same ratio as
        its factor: a perturbation of a factor's level (confidence sampling, sensitivity)
        keeps the reduce/map ratio the two profiles measured."""
        side = dict(self.reduce_side)
        for name, new in values.items():
            if name in side:
                old = float(getattr(self, name))
                if old > 0:
                    side[name] = side[name] * (float(new) / old)
        values = {k: v if isinstance(v, bool) else float(v) for k, v in values.items()}
        return self.model_copy(update={**values, "reduce_side": side})

    @model_validator(mode="before")
    @classmethod
    def _spill_write_default(cls, data: object) -> object:
        """A profile written before spill_write existed priced its spills at local_write:
        keep that, so stored profiles predict exactly as they did."""
        if isinstance(data, dict) and "spill_write" not in data and "local_write" in data:
            return {**data, "spill_write": data["local_write"]}
        return data


class TaskTiming(BaseModel):
    """Observed phase times of one successful attempt (ms), for the profile summary and fitting."""

    model_config = ConfigDict(extra="forbid")

    attempt_id: str
    kind: Literal["map", "reduce"]
    start_ms: int
    finish_ms: int
    phases_ms: dict[str, float] = Field(default_factory=dict)
    counters: dict[str, float] = Field(default_factory=dict)


Provenance = Literal["observed", "inferred", "defaulted"]


class ClusterFact(BaseModel):
    """One fact about the cluster a job ran on, and how it is known.

    *observed*: read from the job's own record (attempt hosts, counters, its configuration);
    *inferred*: derived from observed facts (a node count from the hosts, a node's capacity from
    what one host ran at once); *defaulted*: nothing in the record says, Hadoop's default is used.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    value: float
    provenance: Provenance
    how: str = ""


#: ``InferredCluster`` fields that are :class:`~mrtune.costmodel.cluster.ClusterSpec` fields.
SPEC_FIELDS = (
    "num_nodes",
    "node_memory_mb",
    "node_vcores",
    "min_allocation_mb",
    "max_allocation_mb",
    "am_memory_mb",
    "map_slots_per_node",
    "reduce_slots_per_node",
)


class InferredCluster(BaseModel):
    """The cluster a history ran on, as far as the history tells (issue 19).

    The node count is at least the number of distinct hosts that ran attempts; a node's
    capacity is at least what one host ran at once. ``lower_bound`` is set when the job never
    waited for a container (every map, and every reduce, ran at the same time): then the
    cluster may hold more nodes than the job touched.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    hosts: ClusterFact
    racks: ClusterFact | None = None
    host_sample: list[str] = Field(default_factory=list, description="up to 5 host names")
    map_container_mb: ClusterFact
    reduce_container_mb: ClusterFact
    map_vcores: ClusterFact
    reduce_vcores: ClusterFact
    peak_maps: ClusterFact
    peak_reduces: ClusterFact
    peak_tasks: ClusterFact
    peak_tasks_per_host: ClusterFact
    num_nodes: ClusterFact
    node_memory_mb: ClusterFact
    node_vcores: ClusterFact
    min_allocation_mb: ClusterFact
    max_allocation_mb: ClusterFact
    am_memory_mb: ClusterFact
    map_slots_per_node: ClusterFact
    reduce_slots_per_node: ClusterFact
    lower_bound: bool = False

    def spec_fields(self) -> dict[str, int]:
        """The ``ClusterSpec`` keyword arguments this cluster gives (integers)."""
        return {name: int(round(getattr(self, name).value)) for name in SPEC_FIELDS}

    def facts(self) -> dict[str, ClusterFact]:
        """Every fact by name (the optional ones only when present)."""
        out = {}
        for name in type(self).model_fields:
            v = getattr(self, name)
            if isinstance(v, ClusterFact):
                out[name] = v
        return out


#: Relative miss of a segment's mean time above which a calibration fails (issue 20).
CALIBRATION_TOLERANCE = 0.15
#: Absolute slack (ms) under which a miss never fails a segment: history timestamps are whole
#: milliseconds taken at status updates, so a 16 ms merge predicted as 0 is within the clock's
#: noise and says nothing about the model.
CALIBRATION_FLOOR_MS = 50.0


class SegmentCheck(BaseModel):
    """One observed segment (``map.map``, ``reduce.merge``…) against the calibrated model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    segment: str
    label: str = ""
    n: int = Field(ge=0, description="attempts compared")
    observed_ms: float = Field(description="mean observed time per attempt")
    predicted_ms: float = Field(description="mean model time per attempt, fitted costs")
    error: float = Field(description="(predicted − observed) / observed")
    ok: bool
    reason: str = Field("", description="why the segment misses (empty when it does not)")

    @property
    def error_text(self) -> str:
        """The relative miss as a percentage, or "none observed" when the observed mean is
        below a millisecond (a relative error of 1e11 says nothing)."""
        return f"{self.error:+.0%}" if self.observed_ms >= 1.0 else "none observed"


class CalibrationCheck(BaseModel):
    """Whether the calibrated model reproduces the job's own observed phase times.

    ``failed`` when any segment misses by more than ``tolerance`` (and ``floor_ms``); every
    command that uses the profile says so, and ``--strict`` refuses it (DESIGN decision 10).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    status: Literal["ok", "failed", "not_run"]
    tolerance: float = Field(CALIBRATION_TOLERANCE, gt=0)
    floor_ms: float = Field(CALIBRATION_FLOOR_MS, ge=0)
    segments: list[SegmentCheck] = Field(default_factory=list)
    reason: str = ""

    @property
    def worst(self) -> SegmentCheck | None:
        """The failing segment with the largest relative miss (any segment when none fails)."""
        pool = [s for s in self.segments if not s.ok] or self.segments
        return max(pool, key=lambda s: abs(s.error), default=None)

    def brief(self) -> dict[str, str]:
        """``{"status", "summary"}``: what every JSON output that uses the profile carries, so
        a program reading it sees a failed calibration as a person reading the text does."""
        return {"status": self.status, "summary": self.summary()}

    def summary(self) -> str:
        """One line: status, worst segment and the reason."""
        if self.status == "not_run":
            return f"calibration not run: {self.reason or 'cost factors are defaults'}"
        w = self.worst
        worst = (
            f"worst {w.segment} {w.observed_ms:.0f} ms observed vs {w.predicted_ms:.0f} ms "
            f"model ({w.error_text})"
            if w is not None
            else "no segment to compare"
        )
        if self.status == "ok":
            return f"calibration ok (within {self.tolerance:.0%}): {worst}"
        bad = [s for s in self.segments if not s.ok]
        if w is None or not bad:
            return f"calibration failed: {self.reason or worst}"
        more = f"; {len(bad) - 1} more segment(s) miss" if len(bad) > 1 else ""
        why = f": {w.reason}" if w.reason else ""
        return (
            f"calibration failed (tolerance {self.tolerance:.0%}): {worst}{why}{more} "
            "(profile.calibration lists them)"
        )


class BootstrapRatios(BaseModel):
    """The bootstrap refits of a calibrated profile, kept with it.

    Resample ``i`` redraws the observed attempts with replacement (seeded by ``seed``) and refits
    the cost factors; ``ratios[f][i]`` is factor ``f`` of that refit over the refit on all
    attempts (``mrtune.calibration.resample``). A factor absent from ``ratios`` has no spread (its
    full refit is 0). ``requested`` resamples were drawn; refits that failed on a degenerate draw
    are left out, so each list may be shorter. ``mrtune.optimizer.confidence`` turns them into
    the intervals of every prediction without refitting.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int
    requested: int = Field(ge=1)
    ratios: dict[str, list[float]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> BootstrapRatios:
        lengths = {len(v) for v in self.ratios.values()}
        if len(lengths) > 1:
            raise ValueError(f"bootstrap.ratios: lists of unequal lengths {sorted(lengths)}")
        bad = [
            f for f, v in self.ratios.items() if not all(math.isfinite(x) and x >= 0 for x in v)
        ]
        if bad:
            raise ValueError(f"bootstrap.ratios: non-finite or negative ratios for {bad}")
        unknown = set(self.ratios) - set(CostFactors.model_fields)
        if unknown:
            raise ValueError(f"bootstrap.ratios: unknown cost factor(s) {sorted(unknown)}")
        return self

    @property
    def count(self) -> int:
        """Refits kept (those that succeeded)."""
        return len(next(iter(self.ratios.values()), []))


class MapClass(BaseModel):
    """One class of map tasks the job model keeps apart (issue 16).

    Starfish's input specification lists groups of splits (TeraSort's sample: 200 x 128 MB
    and 100 x 30 MB) and its job profile one ``<map_profile>`` per input, each with its own
    statistics and cost factors; its What-if Engine prices every split at its own size and
    profile. A class is ``input_files`` files of ``input_bytes / input_files`` bytes, cut into
    splits as any input (``costmodel.job.split_layout``), whose maps read the class's own
    ``stats`` (None: the profile's) and cost factors ``cost_scale`` times the profile's
    (a ratio, so a perturbation of a factor's level, as the confidence sampling makes, moves
    every class with it). The reduce side reads the profile's own statistics and factors.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="where the class comes from (input and split size)")
    input_bytes: float = Field(gt=0, description="the class's bytes as stored")
    input_files: int = Field(ge=1, description="files of equal size in the class")
    stats: DataflowStats | None = Field(
        None, description="the class's own map-side statistics (None: the profile's)"
    )
    cost_scale: dict[str, float] = Field(
        default_factory=dict, description="cost factor -> class value / profile value"
    )

    @field_validator("cost_scale")
    @classmethod
    def _scales(cls, v: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(v) - set(CostFactors.model_fields))
        if unknown:
            raise ValueError(f"cost_scale: unknown cost factor(s) {unknown}")
        bad = sorted(k for k, x in v.items() if not (math.isfinite(x) and x >= 0))
        if bad:
            raise ValueError(f"cost_scale: non-finite or negative ratio for {bad}")
        return v

    def profile_of(self, profile: JobProfile) -> JobProfile:
        """``profile`` restricted to this class: its input, statistics and map-side factors."""
        costs = profile.costs
        if self.cost_scale:
            costs = costs.with_factors(
                {f: float(getattr(costs, f)) * r for f, r in self.cost_scale.items()}
            )
        return profile.model_copy(
            update={
                "input_bytes": self.input_bytes,
                "input_files": self.input_files,
                "stats": self.stats if self.stats is not None else profile.stats,
                "costs": costs,
                "map_classes": [],
            }
        )


#: ``MapHeapUse.saturated``: a committed heap within this share of ``-Xmx`` is the whole heap.
HEAP_SATURATED_SHARE = 0.99


class MapHeapUse(BaseModel):
    """The maps' observed heap beyond their sort buffer: what the map function itself took.

    ``COMMITTED_HEAP_BYTES`` is ``Runtime.totalMemory()`` at the task's last counter update
    (``Task.updateHeapUsageCounter``; Rumen keeps it as ``resourceUsageMetrics.heapUsage``,
    ``LoggedTaskAttempt.incorporateCounters``), and ``MapTask.MapOutputBuffer.init`` allocates
    ``kvbuffer`` (``io.sort.mb`` MiB) once at start-up, so a map's committed heap holds its whole
    sort buffer. Committed heap minus ``io.sort.mb`` is therefore what the map function,
    its objects and the JVM's free-heap slack took; an upper bound on its live data (the JVM
    commits at least its initial heap and grows before it is full), which is the safe side for
    a limit. The largest over successful map attempts: one map out of heap fails the job.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    need_mb: float = Field(
        ge=0,
        description="largest committed heap of a successful map minus the sort buffer, MiB "
        "(never below 0)",
    )
    committed_mb: float = Field(ge=0, description="that map's COMMITTED_HEAP_BYTES, MiB")
    sort_mb: float = Field(
        ge=0,
        description="the sort buffer subtracted: the run's io.sort.mb, 0 for a map-only job "
        "(its maps write through DirectMapOutputCollector and allocate no kvbuffer)",
    )
    heap_mb: float = Field(gt=0, description="the map heap (-Xmx) the run had, MiB")
    attempts: int = Field(ge=1, description="successful map attempts that recorded the counter")
    source: str = Field(description="where the figure comes from (counter and history format)")

    @property
    def saturated(self) -> bool:
        """Whether the maps committed their whole heap: the need is then at most this figure
        (the run says only that the map function took all the heap the buffer left)."""
        return self.committed_mb >= HEAP_SATURATED_SHARE * self.heap_mb

    def brief(self) -> str:
        """One line for the CLI and the lint: the figure and where it comes from."""
        whole = ", the whole heap" if self.saturated else ""
        return (
            f"{self.need_mb:,.0f} MB observed beyond the sort buffer (committed heap "
            f"{self.committed_mb:,.0f} MB of {self.heap_mb:,.0f}{whole}, io.sort.mb "
            f"{self.sort_mb:,.0f}; {self.source})"
        )


class PartitionSkew(BaseModel):
    """A hot partition: a share of the map output that no number of reducers splits.

    ``HashPartitioner`` (or a job's own partitioner) sends every record of a key to one
    reduce, so a key (or a partitioner's bucket) that holds a share ``h`` of the map output
    stays whole whatever ``R`` is, and the rest spreads over the ``R`` partitions. The
    largest partition then holds ``h + (1 − h)/R`` of the output and each other one
    ``(1 − h)/R``: over the mean partition, ``1 + h(R − 1)`` and ``1 − h``. ``h`` comes from the
    profiled run's largest share ``s`` at its ``R0`` reduces, ``h = (s·R0 − 1)/(R0 − 1)``: at
    ``R0`` the model's largest partition is the observed one. The examples' SecondarySort with
    70% of its records on one first key sent 77.6% of its shuffle to one of 4 reduces
    (h = 0.70). The job model prices that reduce and the others apart
    (:mod:`mrtune.costmodel.partitions`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hot_share: float = Field(ge=0, lt=1, description="h: the unsplittable share of the output")
    largest_share: float = Field(gt=0, le=1, description="s: the largest reduce's share, observed")
    reducers: int = Field(ge=2, description="R0: the reduces of the profiled run")
    counter: str = Field(description="the per-reduce counter the shares come from")


class JobProfile(BaseModel):
    """Everything the cost model needs to know about a job, independent of its configuration."""

    model_config = ConfigDict(extra="forbid")

    job_id: str = "job"
    job_name: str = ""
    input_bytes: float = Field(gt=0, description="total input bytes as stored (compressed if so)")
    input_files: int = Field(1, ge=1, description="number of input files (assumed equal in size)")
    input_compressed: bool = False
    input_splittable: bool = True
    split_units: str | None = Field(
        None,
        description="why the run's maps are kept as units a split-size change cannot cut "
        "(input_splittable false: packed files, an unsplittable codec, the job's own input "
        "format); None: the model cuts the input",
    )
    old_api_splits: bool = Field(
        False,
        description="the job reads through the old mapred API's FileInputFormat (Hadoop "
        "Streaming): splits of max(split.minsize, min(input / mapreduce.job.maps, block)), "
        "split.maxsize ignored",
    )
    has_combiner: bool = False
    combine_class: str | None = None
    old_api_combiner: bool | None = Field(
        None,
        description="the combiner is the old mapred API's (mapred.combiner.class: "
        "JobConf.setCombinerClass, Streaming's -combiner), the only one Hadoop 2/3 runs in the "
        "reduce's in-memory merges (ReduceTask takes JobConf.getCombinerClass(); a new-API "
        "combiner, mapreduce.job.combine.class, runs on the map side only); Hadoop 1's "
        "ReduceCopier runs either (CombinerRunner). None: not known, taken as the new API",
    )
    map_only: bool = Field(False, description="the job has no reduce phase (reduces = 0)")
    map_output_floor: bool = Field(
        False,
        description="each map emits floor(n·p) of its n input records, a deterministic share "
        "(the selectivity job's mapper emits the first floor(n·p/100) records of its split): "
        "taken when every profiled map's output is within one record of n·p. False: the "
        "expectation n·p, for a tokenising or filtering mapper whose output per record is "
        "not a share, so that the maps' outputs add up to the job's",
    )
    stats: DataflowStats = Field(default_factory=DataflowStats)
    costs: CostFactors = Field(default_factory=CostFactors)
    codecs: dict[str, CodecStats] = Field(default_factory=dict)
    provenance: dict[str, str] = Field(
        default_factory=dict, description="'stats.x' / 'costs.y' → 'measured: …' or 'defaulted: …'"
    )
    source_properties: dict[str, str] = Field(
        default_factory=dict, description="the profiled job's configuration (Hadoop properties)"
    )
    cluster_facts: dict[str, float | str] = Field(default_factory=dict)
    cluster: InferredCluster | None = Field(
        None, description="the cluster the history ran on (hosts, containers, node capacity)"
    )
    observed: list[TaskTiming] = Field(default_factory=list)
    observed_counters: dict[str, float] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    calibration: CalibrationCheck | None = Field(
        None,
        description="the calibrated model against the observed phase times (None: older "
        "profile or not calibrated by mrtune)",
    )
    bootstrap: BootstrapRatios | None = Field(
        None,
        description="the bootstrap refits of the cost factors behind every interval (None: "
        "none kept; they are then recomputed from the observed attempts)",
    )
    map_classes: list[MapClass] = Field(
        default_factory=list,
        description="classes of map tasks modelled apart (split sizes, inputs' own map "
        "profiles); empty: one input of input_files equal files",
    )
    fixed_by_job: list[str] = Field(
        default_factory=list,
        description="job-level properties the job's own code set (its configuration's "
        "<source>programmatically</source>, e.g. Job.setNumReduceTasks): a -D or site value "
        "is overridden, so the search leaves them as they are",
    )
    partition_skew: PartitionSkew | None = Field(
        None,
        description="a hot partition the profiled run's reduces showed (the largest over 1.5x "
        "the mean); None: partitions of equal size",
    )
    map_heap_use: MapHeapUse | None = Field(
        None,
        description="the maps' observed heap beyond the sort buffer (COMMITTED_HEAP_BYTES "
        "minus io.sort.mb), which the sort buffer's cap leaves to the map function "
        "(search_spaces.constraints.sort_buffer_cap); None: the history records no heap "
        "counter, or an older profile",
    )

    @model_validator(mode="after")
    def _check(self) -> JobProfile:
        unknown = set(self.codecs) - set(CODEC_CLASSES)
        if unknown:
            raise ValueError(
                f"codecs: unknown codec(s) {sorted(unknown)}; allowed: {sorted(CODEC_CLASSES)}"
            )
        if self.has_combiner is False and self.combine_class:
            object.__setattr__(self, "has_combiner", True)
        if self.map_classes:
            files = sum(c.input_files for c in self.map_classes)
            size = sum(c.input_bytes for c in self.map_classes)
            if files != self.input_files or not math.isclose(size, self.input_bytes, rel_tol=1e-9):
                raise ValueError(
                    f"map_classes hold {files} files of {size:.0f} bytes but the profile says "
                    f"input_files={self.input_files}, input_bytes={self.input_bytes:.0f}"
                )
        return self

    def with_input_bytes(self, size: float) -> JobProfile:
        """This job on ``size`` bytes of input as stored: the same files, each scaled (every map
        class keeps its files and its share of the input, so a what-if of a new input size
        moves every class, not the total alone).

        Input the maps read as whole units (``input_splittable`` false: gzip files, packed
        files, a job's own input format) grows by its number of units instead, each of the
        profiled size: 100 GB of the same gzip logs is more files, not three 33 GB ones that
        would each be one map."""
        size = float(size)
        f = size / self.input_bytes
        units = not self.input_splittable
        if not self.map_classes:
            update: dict[str, object] = {"input_bytes": size}
            if units:
                update["input_files"] = max(1, round(self.input_files * f))
            return self.model_copy(update=update)
        classes = [
            c.model_copy(
                update={
                    "input_bytes": c.input_bytes * f,
                    "input_files": max(1, round(c.input_files * f)) if units else c.input_files,
                }
            )
            for c in self.map_classes
        ]
        classes[-1] = classes[-1].model_copy(
            update={"input_bytes": size - sum(c.input_bytes for c in classes[:-1])}
        )
        files = sum(c.input_files for c in classes) if units else self.input_files
        return self.model_copy(
            update={"input_bytes": size, "map_classes": classes, "input_files": files}
        )

    def codec(self, name: str) -> CodecStats:
        """Measured statistics for ``name`` if the profile has them, else the documented prior."""
        return self.codecs.get(name) or CODEC_PRIORS[name]

    @property
    def calibration_failed(self) -> bool:
        """Whether the calibrated model misses this job's own observed times
        (:class:`CalibrationCheck`): every command says so; a material miss widens every
        interval and no change whose gain it could explain is written by default (DESIGN
        decision 10; :mod:`mrtune.optimizer.model_miss`)."""
        return self.calibration is not None and self.calibration.status == "failed"

    def provenance_of(self, key: str) -> str:
        return self.provenance.get(key, "defaulted: Starfish/mrtune default")
