"""The keys a Starfish job profile may hold, and where mrtune files each one.

Starfish names them in four enums (``edu.duke.starfish.profile.profileinfo.execution.profile
.enums``): ``MRCounter``, ``MRStatistics`` (reference Table 2), ``MRCostFactors`` (Table 3) and
``MRTaskPhase`` (the timings). The tables below are what :mod:`mrtune.readers.starfish` accepts
without a warning, and what :mod:`mrtune.profiling.starfish` maps onto mrtune's models: a
statistic to a :class:`~mrtune.costmodel.profile.DataflowStats` field, a cost factor to a
:class:`~mrtune.costmodel.profile.CostFactors` field, a timing to mrtune's phase name. They
are a module of their own because both the reader and the assembler read them, and a key
Starfish adds is one line here.
"""

from __future__ import annotations

MB = 2**20
NS_PER_MS = 1e6
#: Hadoop 1 ``dfs.block.size`` default (64 MB).
HADOOP1_BLOCK_SIZE = 64 * MB

MAP_COUNTERS = frozenset(
    {
        "MAP_INPUT_RECORDS",
        "MAP_INPUT_BYTES",
        "MAP_OUTPUT_RECORDS",
        "MAP_OUTPUT_BYTES",
        "MAP_SKIPPED_RECORDS",
        "MAP_NUM_SPILLS",
        "MAP_NUM_SPILL_MERGES",
        "MAP_RECS_PER_BUFF_SPILL",
        "MAP_SPILL_SIZE",
        "MAP_MAX_UNIQUE_GROUPS",
    }
)
REDUCE_COUNTERS = frozenset(
    {
        "REDUCE_SHUFFLE_BYTES",
        "REDUCE_INPUT_GROUPS",
        "REDUCE_INPUT_RECORDS",
        "REDUCE_INPUT_BYTES",
        "REDUCE_OUTPUT_RECORDS",
        "REDUCE_OUTPUT_BYTES",
        "REDUCE_SKIPPED_GROUPS",
        "REDUCE_SKIPPED_RECORDS",
    }
)
SHARED_COUNTERS = frozenset(
    {
        "COMBINE_INPUT_RECORDS",
        "COMBINE_OUTPUT_RECORDS",
        "SPILLED_RECORDS",
        "FILE_BYTES_READ",
        "FILE_BYTES_WRITTEN",
        "HDFS_BYTES_READ",
        "HDFS_BYTES_WRITTEN",
        "S3N_BYTES_READ",
        "S3N_BYTES_WRITTEN",
    }
)
KNOWN_COUNTERS = MAP_COUNTERS | REDUCE_COUNTERS | SHARED_COUNTERS

#: Starfish statistic → DataflowStats field (reference Table 2).
STATISTIC_FIELDS: dict[str, str] = {
    "INPUT_PAIR_WIDTH": "input_pair_width",
    "MAP_SIZE_SEL": "map_size_sel",
    "MAP_PAIRS_SEL": "map_pairs_sel",
    "REDUCE_SIZE_SEL": "reduce_size_sel",
    "REDUCE_PAIRS_SEL": "reduce_pairs_sel",
    "REDUCE_PAIRS_PER_GROUP": "reduce_pairs_per_group",
    "COMBINE_SIZE_SEL": "combine_size_sel",
    "COMBINE_PAIRS_SEL": "combine_pairs_sel",
    "INPUT_COMPRESS_RATIO": "input_compress_ratio",
    "OUT_COMPRESS_RATIO": "out_compress_ratio",
}
#: Statistics mrtune reads but keeps elsewhere (codecs) or only records (memory feasibility).
OTHER_STATISTICS = frozenset(
    {
        "INTERM_COMPRESS_RATIO",
        "STARTUP_MEM",
        "SETUP_MEM",
        "MAP_MEM_PER_RECORD",
        "REDUCE_MEM_PER_RECORD",
        "CLEANUP_MEM",
    }
)
KNOWN_STATISTICS = frozenset(STATISTIC_FIELDS) | OTHER_STATISTICS
#: Which profile measures a statistic (looked up there first, then in the other one).
_STAT_OWNER = {
    "REDUCE_SIZE_SEL": "reduce",
    "REDUCE_PAIRS_SEL": "reduce",
    "REDUCE_PAIRS_PER_GROUP": "reduce",
    "OUT_COMPRESS_RATIO": "reduce",
}

#: Starfish cost factor → CostFactors field (reference Table 3).
COST_FIELDS: dict[str, str] = {
    "READ_HDFS_IO_COST": "hdfs_read",
    "WRITE_HDFS_IO_COST": "hdfs_write",
    "READ_LOCAL_IO_COST": "local_read",
    "WRITE_LOCAL_IO_COST": "local_write",
    "NETWORK_COST": "network",
    "MAP_CPU_COST": "map_cpu",
    "REDUCE_CPU_COST": "reduce_cpu",
    "COMBINE_CPU_COST": "combine_cpu",
    "PARTITION_CPU_COST": "partition_cpu",
    "SERDE_CPU_COST": "serde_cpu",
    "SORT_CPU_COST": "sort_cpu",
    "MERGE_CPU_COST": "merge_cpu",
    "INPUT_UNCOMPRESS_CPU_COST": "input_uncompress",
}
CODEC_COSTS = frozenset(
    {"INTERM_UNCOMPRESS_CPU_COST", "INTERM_COMPRESS_CPU_COST", "OUTPUT_COMPRESS_CPU_COST"}
)
TASK_COSTS = frozenset({"SETUP_CPU_COST", "CLEANUP_CPU_COST"})
KNOWN_COSTS = frozenset(COST_FIELDS) | CODEC_COSTS | TASK_COSTS
#: Who measures a cost factor: "map", "reduce", or "both" (then kept apart per side).
_COST_OWNER: dict[str, str] = {
    "READ_HDFS_IO_COST": "map",
    "MAP_CPU_COST": "map",
    "PARTITION_CPU_COST": "map",
    "SERDE_CPU_COST": "map",
    "SORT_CPU_COST": "map",
    "INPUT_UNCOMPRESS_CPU_COST": "map",
    "WRITE_HDFS_IO_COST": "reduce",
    "NETWORK_COST": "reduce",
    "REDUCE_CPU_COST": "reduce",
    "OUTPUT_COMPRESS_CPU_COST": "reduce",
    "READ_LOCAL_IO_COST": "both",
    "WRITE_LOCAL_IO_COST": "both",
    "MERGE_CPU_COST": "both",
    "COMBINE_CPU_COST": "both",
    "INTERM_COMPRESS_CPU_COST": "both",
    "INTERM_UNCOMPRESS_CPU_COST": "both",
}
#: Starfish timing → mrtune phase name, per task kind.
MAP_TIMINGS = {
    "READ": "read",
    "MAP": "map",
    "COLLECT": "collect",
    "SPILL": "spill",
    "MERGE": "merge",
    "WRITE": "write",
    "SETUP": "setup",
    "CLEANUP": "cleanup",
}
REDUCE_TIMINGS = {
    "SHUFFLE": "shuffle",
    "SORT": "merge",
    "REDUCE": "reduce",
    "WRITE": "write",
    "SETUP": "setup",
    "CLEANUP": "cleanup",
}
