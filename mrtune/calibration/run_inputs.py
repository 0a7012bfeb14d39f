"""A run record's input as the model reads it: its files (map classes for files of unequal
size, each map's files as one unit for CombineFileInputFormat), and the -D settings the job did
not run with (its staged job.xml is what ran).
"""

from __future__ import annotations

from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import JobProfile, MapClass
from mrtune.profiling.input_classes import (
    COMBINED_SPLITS,
    EQUAL_SHARE,
    OLD_API_SPLITS,
    SPLIT_SLOP,
    classes_note,
    file_classes,
    job_split_size,
    old_api,
)
from mrtune.readers.run_records import RunRecord


def ignored_settings_line(rec: RunRecord) -> str:
    """One line naming the ``-D`` settings the job did not run with (its staged job.xml)."""
    parts = [
        f"-D {k}={rec.settings[k]} (job.xml: {v if v is not None else 'not set'})"
        for k, v in sorted(rec.ignored_settings().items())
    ]
    return (
        f"run {rec.run_id}: the job did not run with {', '.join(parts)}: its driver did not pass "
        "these on (a new Configuration in run()?); the profile takes the staged job.xml, what ran"
    )


def combined(rec: RunRecord) -> bool:
    """Whether the maps read CombineFileSplits (several files a map)."""
    return any(a.split_parts for a in rec.map_attempts)


#: File suffixes of codecs that are no ``SplittableCompressionCodec`` (``TextInputFormat`` and
#: ``FileInputFormat.isSplitable`` give each such file one map; bzip2's ``.bz2`` is splittable,
#: hadoop-lzo's ``.lzo`` only through its own index and input format).
UNSPLITTABLE_SUFFIXES = (".gz", ".deflate", ".snappy", ".lz4", ".zst", ".lzo")


def _paths_ending(rec: RunRecord, suffixes: tuple[str, ...]) -> list[str]:
    """The maps' split files whose name ends in one of ``suffixes`` (any case), sorted."""
    paths = sorted({a.split_path for a in rec.map_attempts if a.split_path})
    return [p for p in paths if p.lower().endswith(suffixes)]


def input_compression_note(rec: RunRecord) -> str:
    """Why a run record's input compression ratio is not measured: a generated input is
    plain; compressed files (by their suffix) are counted by Hadoop 2/3 in stored bytes only
    (FileInputFormatCounter BYTES_READ), so their raw size is unknown and every per-byte
    statistic and cost of the maps is per stored byte, decompression included."""
    codec = _paths_ending(rec, (*UNSPLITTABLE_SUFFIXES, ".bz2"))
    if codec:
        return (
            f"{len(codec)} compressed input file(s) ({codec[0].rsplit('/', 1)[-1]}"
            f"{', ...' if len(codec) > 1 else ''}): Hadoop "
            "counts their stored bytes only, so per-byte statistics and costs are per stored "
            "byte, decompression included"
        )
    if rec.input.kind != "other":
        return "generated input is not compressed"
    return "the input files are read as stored (no codec suffix)"


def unsplittable(rec: RunRecord, cfg: HadoopConfig) -> str | None:
    """Why each map's input is one unit a split-size change cannot cut, or ``None``.

    CombineFileInputFormat packs files into a map; a file of a codec that cannot be split is
    read whole (WordCount over a 9 MB .gz at a 4 MB split.maxsize ran one map, which the model
    had cut into 3); and no map of ``FileInputFormat`` reads more than :data:`SPLIT_SLOP`
    splits, so one that did was cut by the job's own input format."""
    if combined(rec):
        return COMBINED_SPLITS
    codec = _paths_ending(rec, UNSPLITTABLE_SUFFIXES)
    if codec:
        return (
            f"{len(codec)} input file(s) of a codec that cannot be split ({codec[0]}): each is "
            "one map whatever the split size, so split-size changes are not modelled"
        )
    longest = max((a.split_length or 0 for a in rec.map_attempts), default=0)
    split = job_split_size(rec.ran_with(), cfg, float(rec.input.bytes), local=True)
    if longest > SPLIT_SLOP * split * (1.0 + EQUAL_SHARE):
        return (
            f"a map read a {longest:,} B split, more than FileInputFormat gives at a "
            f"{split:,} B split size ({SPLIT_SLOP} splits): the job's input format cut "
            "the input, so the run's maps are kept and split-size changes are not modelled"
        )
    return None


def old_api_note(rec: RunRecord) -> str | None:
    """The old-API line (:data:`OLD_API_SPLITS`) for a run of the old ``mapred`` API."""
    return OLD_API_SPLITS if old_api(rec.ran_with()) else None


def input_files(rec: RunRecord) -> tuple[int, list[MapClass], str]:
    """``(input files, map classes, provenance)``: the files the maps' splits came from.

    The model cuts ``input_files`` files of ``input_bytes / input_files`` bytes each into
    splits (``costmodel/map_groups.py`` ``split_layout``), so the count decides the maps, their
    sizes and the spills per map: SensorStats' ten 12.9 MB files are ten maps of one spill
    each, one 129 MB file would be four maps of two spills. The count and sizes are the
    run's own ("Processing split: path:start+length", :meth:`RunRecord.input_file_sizes`);
    files of unequal size become map classes (:func:`~mrtune.profiling.input_classes.file_classes`).
    """
    sizes = rec.input_file_sizes()
    if combined(rec) or old_api(rec.ran_with()):
        # each map's input is one unit: CombineFileInputFormat packed its files; the old API's
        # FileInputFormat cut it by its own goal size
        sizes = {a.attempt_id: int(a.split_length or 0) for a in rec.map_attempts}
    if not sizes:
        return 1, [], "defaulted: the run logged no split paths; one file assumed"
    n = len(sizes)
    lo, hi = min(sizes.values()), max(sizes.values())
    if n == 1:
        return 1, [], f"measured: one input file ({hi:,} B) in the maps' splits"
    # the classes hold the profile's input_bytes exactly (JobProfile's check)
    scale = float(rec.input.bytes) / sum(sizes.values())
    classes = file_classes([b * scale for b in sizes.values()])
    if classes:
        return n, classes, classes_note(list(sizes.values()), classes, "the maps' splits")
    return n, [], f"measured: {n} input files in the maps' splits ({lo:,}–{hi:,} B)"


def _selectivity_percent(rec: RunRecord) -> float:
    conf = rec.ran_with()
    return float(conf.get("mrtune.selectivity.percent", 100))


def profile_for_run(profile: JobProfile, calibration: RunRecord, rec: RunRecord) -> JobProfile:
    """``profile`` (built from ``calibration``) moved to the job parameters of ``rec``.

    The configuration is the what-if question, but two things are properties of the job, not
    of its configuration: the input (its files and their sizes, as ``rec``'s maps read them),
    and the selectivity job's emitted share
    (``mrtune.selectivity.percent``: the map emits the first floor(n·p/100) records of its
    split), which scales the map's pair and size selectivities.
    """
    n_files, classes, _ = input_files(rec)
    if not rec.input_file_sizes():  # no splits logged: the calibration run's files, scaled
        scaled = profile.with_input_bytes(rec.input.bytes)  # whole units grow in number
        n_files, classes = scaled.input_files, scaled.map_classes
    update: dict[str, object] = {
        "input_bytes": float(rec.input.bytes),
        "input_files": n_files,
        "map_classes": classes,
    }
    if rec.job == "selectivity" and calibration.job == "selectivity":
        p0, p1 = _selectivity_percent(calibration), _selectivity_percent(rec)
        if p0 > 0 and p1 != p0:
            f = p1 / p0
            st = profile.stats
            update["stats"] = st.model_copy(
                update={"map_pairs_sel": st.map_pairs_sel * f, "map_size_sel": st.map_size_sel * f}
            )
            update["provenance"] = {
                **profile.provenance,
                "stats.map_pairs_sel": f"job parameter: mrtune.selectivity.percent {p1:g} "
                f"(calibrated at {p0:g})",
            }
    return profile.model_copy(update=update)
