"""Job profiles for the search benchmark (and for tests that need varied jobs).

Thirteen jobs that stress different parts of the model: spill-heavy (wide records, big
splits), shuffle-heavy (joins, sorts), combiner-friendly aggregations, compressible
intermediate data, map-only jobs, Hadoop 1 semantics, and sizes from 1 GB to 1 TB on 2 to 100
nodes. The numbers are plausible, not measured: pair widths 10–1000 B, selectivities as the
named job types produce them, and cost factors in the ranges Starfish reports for commodity
clusters (HDFS read 10–40 ns/B, write 40–120 ns/B with replication, local disk 5–20 ns/B,
network 8–30 ns/B, map/reduce CPU 300–6000 ns/record).
"""

from __future__ import annotations

from mrtune.costmodel import (
    ClusterSpec,
    CodecStats,
    CostFactors,
    DataflowStats,
    HadoopConfig,
    JobProfile,
)

GB = 2**30
TB = 2**40

BenchmarkProfile = tuple[str, JobProfile, HadoopConfig, ClusterSpec]


def _costs(**kw: float) -> CostFactors:
    return CostFactors(**kw)


def benchmark_profiles() -> list[BenchmarkProfile]:
    """``(name, profile, base configuration, cluster)`` for each benchmark job, in a fixed
    order (benchmarks and tests index it); grouped by what each job stresses."""
    yarn16 = ClusterSpec(num_nodes=16, node_memory_mb=16384, node_vcores=8)
    out: list[BenchmarkProfile] = [
        *_count_and_sort_jobs(),
        *_shuffle_and_spill_jobs(yarn16),
        *_compression_jobs(yarn16),
        *_map_only_and_small_jobs(),
        *_cpu_hadoop1_and_wide_jobs(),
    ]
    return out


def _count_and_sort_jobs() -> list[BenchmarkProfile]:
    """A combiner-friendly word count and TeraSort at 1 TB and 10 GB: the
    plain map-sort-reduce path."""
    return [
        (
            "wordcount-50G",
            JobProfile(
                job_id="wordcount-50G",
                input_bytes=50 * GB,
                has_combiner=True,
                combine_class="WordCount$IntSumReducer",
                stats=DataflowStats(
                    input_pair_width=70,
                    map_pairs_sel=11,
                    map_size_sel=1.9,
                    combine_pairs_sel=0.08,
                    combine_size_sel=0.09,
                    combine_profiled_input_records=2.0e6,
                    combiner_heaps_beta=0.55,
                    reduce_pairs_sel=0.2,
                    reduce_size_sel=0.25,
                    reduce_pairs_per_group=5,
                ),
                costs=_costs(map_cpu=900, combine_cpu=250, reduce_cpu=400),
            ),
            HadoopConfig(num_reducers=8),
            ClusterSpec(num_nodes=10, node_memory_mb=8192, node_vcores=8),
        ),
        (
            "terasort-1T",
            JobProfile(
                job_id="terasort-1T",
                input_bytes=1 * TB,
                stats=DataflowStats(input_pair_width=100),
                costs=_costs(map_cpu=350, reduce_cpu=300, hdfs_write=90, network=12),
            ),
            HadoopConfig(num_reducers=64),
            ClusterSpec(num_nodes=100, node_memory_mb=32768, node_vcores=16),
        ),
        (
            "terasort-10G",
            JobProfile(
                job_id="terasort-10G",
                input_bytes=10 * GB,
                stats=DataflowStats(input_pair_width=100),
                costs=_costs(map_cpu=350, reduce_cpu=300),
            ),
            HadoopConfig(num_reducers=4),
            ClusterSpec(num_nodes=4, node_memory_mb=8192, node_vcores=4),
        ),
    ]


def _shuffle_and_spill_jobs(yarn16: ClusterSpec) -> list[BenchmarkProfile]:
    """A shuffle-heavy join, a spill-heavy sessionization (wide records) and a graph job with
    tiny pairs (per-record costs dominate)."""
    return [
        (
            "join-500G-shuffle-heavy",
            JobProfile(
                job_id="join-500G",
                input_bytes=500 * GB,
                input_files=200,
                stats=DataflowStats(
                    input_pair_width=220,
                    map_pairs_sel=1.0,
                    map_size_sel=1.15,
                    reduce_pairs_sel=0.6,
                    reduce_size_sel=0.9,
                    reduce_pairs_per_group=3,
                ),
                costs=_costs(map_cpu=1200, reduce_cpu=1500, network=25, hdfs_write=80),
            ),
            HadoopConfig(num_reducers=100),
            ClusterSpec(num_nodes=40, node_memory_mb=24576, node_vcores=12),
        ),
        (
            "sessionize-200G-spill-heavy",
            JobProfile(
                job_id="sessionize-200G",
                input_bytes=200 * GB,
                stats=DataflowStats(
                    input_pair_width=600,
                    map_pairs_sel=1.0,
                    map_size_sel=1.7,
                    reduce_pairs_sel=0.05,
                    reduce_size_sel=0.3,
                    reduce_pairs_per_group=40,
                ),
                costs=_costs(
                    map_cpu=2500, reduce_cpu=3000, sort_cpu=45, local_write=18, local_read=10
                ),
            ),
            HadoopConfig(num_reducers=40, io_sort_mb=100),
            yarn16,
        ),
        (
            "pagerank-20G-tiny-pairs",
            JobProfile(
                job_id="pagerank-20G",
                input_bytes=20 * GB,
                has_combiner=True,
                stats=DataflowStats(
                    input_pair_width=45,
                    map_pairs_sel=6.0,
                    map_size_sel=3.5,
                    combine_pairs_sel=0.55,
                    combine_size_sel=0.5,
                    reduce_pairs_sel=0.15,
                    reduce_size_sel=0.25,
                    reduce_pairs_per_group=7,
                ),
                costs=_costs(map_cpu=600, reduce_cpu=350, partition_cpu=80, serde_cpu=150),
            ),
            HadoopConfig(num_reducers=20),
            ClusterSpec(num_nodes=8, node_memory_mb=16384, node_vcores=8),
        ),
    ]


def _compression_jobs(yarn16: ClusterSpec) -> list[BenchmarkProfile]:
    """Gzip-compressed input and compressible intermediate data: the codec terms."""
    return [
        (
            "logagg-300G-gzip-input",
            JobProfile(
                job_id="logagg-300G",
                input_bytes=300 * GB,
                input_files=600,
                input_compressed=True,
                input_splittable=False,
                has_combiner=True,
                stats=DataflowStats(
                    input_pair_width=250,
                    input_compress_ratio=0.22,
                    map_pairs_sel=1.0,
                    map_size_sel=0.12,
                    combine_pairs_sel=0.02,
                    combine_size_sel=0.02,
                    reduce_pairs_sel=0.5,
                    reduce_size_sel=0.6,
                    reduce_pairs_per_group=20,
                ),
                costs=_costs(map_cpu=1800, input_uncompress=6, combine_cpu=200),
            ),
            HadoopConfig(num_reducers=30),
            ClusterSpec(num_nodes=30, node_memory_mb=16384, node_vcores=8),
        ),
        (
            "etl-100G-compressible",
            JobProfile(
                job_id="etl-100G",
                input_bytes=100 * GB,
                stats=DataflowStats(
                    input_pair_width=400,
                    map_pairs_sel=1.0,
                    map_size_sel=1.0,
                    reduce_pairs_sel=1.0,
                    reduce_size_sel=1.0,
                ),
                codecs={
                    "snappy": CodecStats(
                        ratio=0.25,
                        compress_ns_per_byte=3.5,
                        uncompress_ns_per_byte=1.2,
                        source="benchmark: repetitive CSV",
                    ),
                    "zstd": CodecStats(
                        ratio=0.14,
                        compress_ns_per_byte=5.0,
                        uncompress_ns_per_byte=1.6,
                        source="benchmark: repetitive CSV",
                    ),
                },
                costs=_costs(map_cpu=700, reduce_cpu=500, hdfs_write=110, network=28),
            ),
            HadoopConfig(num_reducers=50),
            yarn16,
        ),
    ]


def _map_only_and_small_jobs() -> list[BenchmarkProfile]:
    """Two map-only jobs (filter, format conversion) and a 1 GB job on a small cluster."""
    return [
        (
            "filter-100G-map-only",
            JobProfile(
                job_id="filter-100G",
                input_bytes=100 * GB,
                map_only=True,
                stats=DataflowStats(input_pair_width=180, map_pairs_sel=0.3, map_size_sel=0.3),
                costs=_costs(map_cpu=400, hdfs_write=70),
            ),
            HadoopConfig(num_reducers=0),
            ClusterSpec(num_nodes=20, node_memory_mb=16384, node_vcores=8),
        ),
        (
            "convert-1T-map-only",
            JobProfile(
                job_id="convert-1T",
                input_bytes=1 * TB,
                map_only=True,
                stats=DataflowStats(input_pair_width=900, map_pairs_sel=1.0, map_size_sel=0.8),
                costs=_costs(map_cpu=3000, hdfs_write=100),
            ),
            HadoopConfig(num_reducers=0),
            ClusterSpec(num_nodes=60, node_memory_mb=32768, node_vcores=16),
        ),
        (
            "small-1G",
            JobProfile(
                job_id="small-1G",
                input_bytes=1 * GB,
                has_combiner=True,
                stats=DataflowStats(
                    input_pair_width=120,
                    map_pairs_sel=2.0,
                    map_size_sel=0.6,
                    combine_pairs_sel=0.4,
                    combine_size_sel=0.4,
                    reduce_pairs_sel=0.5,
                    reduce_size_sel=0.5,
                ),
            ),
            HadoopConfig(num_reducers=1),
            ClusterSpec(num_nodes=2, node_memory_mb=8192, node_vcores=4),
        ),
    ]


def _cpu_hadoop1_and_wide_jobs() -> list[BenchmarkProfile]:
    """A CPU-heavy iteration, TeraSort under Hadoop 1 semantics and an inverted index with
    wide values."""
    return [
        (
            "kmeans-80G-cpu-heavy",
            JobProfile(
                job_id="kmeans-80G",
                input_bytes=80 * GB,
                has_combiner=True,
                stats=DataflowStats(
                    input_pair_width=320,
                    map_pairs_sel=1.0,
                    map_size_sel=0.35,
                    combine_pairs_sel=0.0005,
                    combine_size_sel=0.0006,
                    max_distinct_keys=500,
                    reduce_pairs_sel=0.001,
                    reduce_size_sel=0.002,
                    reduce_pairs_per_group=1000,
                ),
                costs=_costs(map_cpu=6000, combine_cpu=800, reduce_cpu=900),
            ),
            HadoopConfig(num_reducers=10),
            ClusterSpec(num_nodes=12, node_memory_mb=16384, node_vcores=8),
        ),
        (
            "terasort-100G-hadoop1",
            JobProfile(
                job_id="terasort-100G-h1",
                input_bytes=100 * GB,
                stats=DataflowStats(input_pair_width=100),
                costs=_costs(map_cpu=400, reduce_cpu=350, hdfs_read=30, local_write=15),
            ),
            HadoopConfig(hadoop_version=1, num_reducers=20, child_java_opts="-Xmx1024m"),
            ClusterSpec(num_nodes=20, map_slots_per_node=4, reduce_slots_per_node=2),
        ),
        (
            "invertedindex-400G-wide-values",
            JobProfile(
                job_id="invindex-400G",
                input_bytes=400 * GB,
                has_combiner=True,
                stats=DataflowStats(
                    input_pair_width=1000,
                    map_pairs_sel=40,
                    map_size_sel=1.2,
                    combine_pairs_sel=0.6,
                    combine_size_sel=0.7,
                    reduce_pairs_sel=0.01,
                    reduce_size_sel=0.4,
                    reduce_pairs_per_group=100,
                ),
                costs=_costs(map_cpu=5000, reduce_cpu=800, network=20),
            ),
            HadoopConfig(num_reducers=200),
            ClusterSpec(num_nodes=50, node_memory_mb=24576, node_vcores=12),
        ),
    ]
