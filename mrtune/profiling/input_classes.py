"""Input files of unequal size as map classes, so the job model cuts each file as Hadoop did.

``FileInputFormat.getSplits`` cuts every input file on its own: ``k`` full splits and a tail
(``costmodel/map_groups.py``). A profile with one ``input_files`` count models them as equal
files of the mean size, which is exact only when they are. When they are not, the maps' sizes
and so their spills, merges and combined records all change: the examples' WordCount on files of
2, 8 and 30 MB with a 10 MB sort buffer spilled 716,164 records (one spill for the small file,
eight for the large) where three equal 14 MB files gave 540,060, at the run's own settings.

:func:`file_classes` turns the files' sizes into :class:`~mrtune.costmodel.profile.MapClass`
entries that share the profile's statistics and cost factors; only their sizes differ. Files
within :data:`EQUAL_SHARE` of each other are one class; more than :data:`MAX_CLASSES`
distinct sizes are grouped into that many classes of neighbouring sizes (each class's files at
their mean size), since the job model makes two map-task calls per class
(``costmodel.map_groups.map_groups``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.profile import JobProfile, MapClass

#: What a profile of CombineFileInputFormat maps says.
COMBINED_SPLITS = (
    "the maps read CombineFileInputFormat splits (several files each, packed up to "
    "split.maxsize): the model keeps the run's packing, each map's files one unsplittable "
    "unit, so split-size changes are not modelled"
)
#: What a profile of an old-API job (``org.apache.hadoop.mapred``: Hadoop Streaming) says.
OLD_API_SPLITS = (
    "the job uses the old mapred API, whose FileInputFormat cuts splits of max(split.minsize, "
    "min(input / mapreduce.job.maps, block)) and ignores split.maxsize; the model cuts them so "
    "(mapreduce.job.maps is 1 in local mode), and the search leaves the split size out: a map "
    "count written for this input would cut another input differently"
)


def old_api(props: Any) -> bool:
    """Whether the job ran the old ``mapred`` API (``Job.setUseNewAPI`` sets
    ``mapred.mapper.new-api`` false when ``mapred.mapper.class`` names the mapper)."""
    return str(props.get("mapred.mapper.new-api", "")).strip().lower() == "false"


def job_split_size(props: Any, cfg: HadoopConfig, stored: float, *, local: bool = False) -> int:
    """The split size the job's FileInputFormat cut ``stored`` bytes by: the new API's
    ``cfg.split_size``, or the old API's ``max(minSize, min(stored / mapreduce.job.maps,
    block))`` (``costmodel.map_groups.split_sizes``). The configuration a job ran with holds
    the maps ``JobSubmitter`` made (it writes their count into ``mapreduce.job.maps`` after
    ``writeSplits``), not the driver's hint: on a cluster that reproduces the run's split,
    and in local mode (``local``) the hint was 1 (``LocalClientProtocolProvider``)."""
    if not old_api(props):
        return cfg.split_size
    from mrtune.costmodel.map_groups import old_api_split

    maps = 1 if local else max(cfg.num_maps_hint, 1)
    return int(old_api_split(int(stored), maps, cfg.split_minsize, cfg.dfs_blocksize))


#: FileInputFormat's SPLIT_SLOP: a file's last split may be up to 1.1 splits long.
SPLIT_SLOP = 1.1
#: Split-size settings that make a history's split size a fact rather than a default.
SPLIT_KEYS = (
    "dfs.blocksize",
    "dfs.block.size",
    "mapreduce.input.fileinputformat.split.minsize",
    "mapreduce.input.fileinputformat.split.maxsize",
    "mapred.min.split.size",
    "mapred.max.split.size",
)
#: Files whose sizes differ by less than this share of the larger are one class.
EQUAL_SHARE = 0.01
#: Most classes a profile gets: the model's map side costs two task calls per class.
MAX_CLASSES = 8
#: Rounds of :func:`anchored_combiner`'s rescaling (the caps make it not quite linear).
ANCHOR_ROUNDS = 4


def _groups(sizes: list[float]) -> list[list[float]]:
    """Sorted ``sizes`` cut where a size exceeds the group's first by :data:`EQUAL_SHARE`."""
    groups: list[list[float]] = []
    for s in sorted(sizes):
        if groups and s - groups[-1][0] <= EQUAL_SHARE * s:
            groups[-1].append(s)
        else:
            groups.append([s])
    return groups


def _merged(groups: list[list[float]], most: int) -> list[list[float]]:
    """At most ``most`` groups: neighbouring groups joined, equal numbers of groups each."""
    if len(groups) <= most:
        return groups
    out: list[list[float]] = []
    for i in range(most):
        lo, hi = i * len(groups) // most, (i + 1) * len(groups) // most
        out.append([s for g in groups[lo:hi] for s in g])
    return out


def file_classes(sizes: Sequence[float], max_classes: int = MAX_CLASSES) -> list[MapClass]:
    """The map classes of input files of these ``sizes`` (bytes as stored); empty when they
    are all one size (within :data:`EQUAL_SHARE`): the profile's ``input_files`` equal files
    then say it exactly."""
    good = [float(s) for s in sizes if s > 0]
    groups = _groups(good)
    if len(groups) <= 1:
        return []
    classes = []
    for g in _merged(groups, max_classes):
        mean = sum(g) / len(g)
        span = f"{min(g):,.0f}–{max(g):,.0f} B" if max(g) > min(g) else f"{mean:,.0f} B"
        name = f"{len(g)} file{'s' if len(g) > 1 else ''} of {span}"
        classes.append(MapClass(name=name, input_bytes=sum(g), input_files=len(g)))
    return classes


def classes_note(sizes: Sequence[float], classes: Sequence[MapClass], source: str) -> str:
    """Provenance of ``map_classes``: how many files, in how many classes, from where."""
    files = sum(c.input_files for c in classes)
    exact = len(_groups([float(s) for s in sizes if s > 0])) == len(classes)
    how = "one size each" if exact else "neighbouring sizes grouped, each at its mean"
    return f"measured: {files} input files of unequal size in {len(classes)} classes ({how}), {source}"


def files_of_maps(
    map_bytes: Sequence[float], stored: float, split: float, files_conf: int | None
) -> list[float] | None:
    """The input files' sizes when each map read one whole file, else ``None``.

    A history names no file, but a map reads a whole file when the job listed as many files as
    it ran maps (``mapreduce.input.fileinputformat.numinputfiles``, set by
    ``FileInputFormat.listStatus``), or when no map read a full split (each split is then some
    file's only one). ``CombineFileInputFormat`` packs several files into a map: its file count
    exceeds the maps', so it is left alone. The sizes are scaled to the job's ``stored`` input
    (per-map counters can miss the bytes a record reader reads past its split's end); more than
    :data:`EQUAL_SHARE` apart from it, they are not used."""
    sizes = [float(b) for b in map_bytes]
    if len(sizes) < 2 or any(not b > 0 for b in sizes) or stored <= 0:
        return None
    total = sum(sizes)
    if abs(total - stored) > EQUAL_SHARE * stored:
        return None
    whole = files_conf == len(sizes) or (
        files_conf in (None, len(sizes)) and max(sizes) < (1.0 - EQUAL_SHARE) * split
    )
    return [b * stored / total for b in sizes] if whole else None


def _map_combine_output(profile: JobProfile, cfg: HadoopConfig) -> float:
    """The job model's map-side COMBINE_OUTPUT_RECORDS at ``cfg`` (every map class)."""
    from mrtune.costmodel import ClusterSpec, ConfigBatch
    from mrtune.costmodel.map_groups import map_groups, total
    from mrtune.costmodel.map_task import MapInputs

    batch = ConfigBatch.from_configs([cfg])
    groups = map_groups(
        profile, batch, ClusterSpec(), MapInputs.build(profile, batch), counters=True
    )
    return float(total(groups, "combine_output_records")[0])


def anchored_combiner(
    profile: JobProfile, cfg: HadoopConfig, observed: float | None
) -> JobProfile:
    """``profile`` whose combiner selectivity reproduces the run's map-side combined records
    ``observed`` on its map classes.

    Without the keys' law (``key_vocabulary``), the combiner's output is the Heaps curve
    ``sel0 · n0 · (n / n0)^beta`` (``costmodel/combiner.py``), ``sel0`` measured over the whole
    run and ``n0`` the records of a mean combine call. Equal files put every map at ``n0``, so
    the run came out exactly; files of unequal size put the maps on both sides of it, and the
    concave curve then sums to less (the 0.20-era WordCount trace's three maps of 0.16, 0.58
    and 0.70 MB: 17,246 combined records for 17,866). ``sel0`` is rescaled (it enters the
    curve linearly, below its caps) until the profiled run is reproduced; the curve's shape,
    what a change of spill size moves along, is kept. A profile with the keys' law is
    anchored by its knots instead (:func:`~mrtune.profiling.combine_fit.knots_on_model_layout`).
    """
    st = profile.stats
    if (
        not profile.map_classes
        or not profile.has_combiner
        or st.key_vocabulary is not None
        or observed is None
        or not observed > 0
    ):
        return profile
    for _ in range(ANCHOR_ROUNDS):
        model = _map_combine_output(profile, cfg)
        ratio = observed / model if model > 0 else math.nan
        if not math.isfinite(ratio) or abs(ratio - 1.0) < 1e-9:
            break
        st = profile.stats
        pairs = min(st.combine_pairs_sel * ratio, 1.0)
        scale = pairs / st.combine_pairs_sel
        size = min(st.combine_size_sel * scale, 1.5)
        if scale == 1.0:
            break
        stats = st.model_copy(update={"combine_pairs_sel": pairs, "combine_size_sel": size})
        profile = profile.model_copy(update={"stats": stats})
    prov = dict(profile.provenance)
    prov["stats.combine_pairs_sel"] = (
        f"{prov.get('stats.combine_pairs_sel', 'measured')}; rescaled to "
        f"{profile.stats.combine_pairs_sel:.6g} so the map classes' combine calls sum to the "
        f"run's {observed:,.0f} combined records"
    )
    return profile.model_copy(update={"provenance": prov})


@dataclass(frozen=True)
class HistoryLayout:
    """A history's input as map classes: ``classes`` (empty: equal files), their provenance
    ``note``, and whether the input format ``packed`` several files a map."""

    classes: list[MapClass]
    note: str
    packed: bool
    #: why the maps are kept as units (``JobProfile.split_units``), when ``packed``
    units: str | None = None


def history_classes(job: Any, stored: float, files_conf: int | None) -> HistoryLayout:
    """The maps' own sizes as classes when each map read whole files, and whether the input
    format packed several files a map (CombineFileInputFormat: more files listed than maps
    ran; the examples' MultiFileWordCount, 12 files in 1 map, was modelled as 5 maps in 3
    waves and offered split.minsize, which it ignores): each map's files are then one
    unsplittable unit."""
    from mrtune.profiling.dataflow import stored_input_bytes

    per_map = [stored_input_bytes(a.counters) for a in job.h.successful("map")]
    fmt = str(job.props.get("mapreduce.job.inputformat.class", ""))
    fmt = fmt or str(job.props.get("mapred.input.format.class", ""))
    split = job_split_size(job.props, job.cfg, stored)
    units = None
    if bool(files_conf and files_conf > job.n_maps) or "Combine" in fmt:
        units = COMBINED_SPLITS
    elif (whole := whole_units(job, stored, fmt, split)) is not None:
        units = whole
    elif old_api(job.props):
        job.warnings.append(OLD_API_SPLITS)
    if units is not None:
        job.warnings.append(units)
        files_conf = job.n_maps
    sizes = files_of_maps(per_map, stored, split, files_conf)
    classes = file_classes(sizes) if sizes is not None and len(sizes) == job.n_maps else []
    packed = units is not None
    how = "each map's files as one unit" if packed else "one file a map"
    if (
        not classes
        and not packed
        and (sizes := files_from_splits(per_map, stored, split, files_conf))
    ):
        classes, how = file_classes(sizes), "files rebuilt from the maps' splits"
    if not classes:
        return HistoryLayout([], "", packed, units)
    note = classes_note(sizes, classes, f"{how} (each map's input bytes)")
    return HistoryLayout(classes, note, packed, units)


def files_from_splits(
    map_bytes: Sequence[float], stored: float, split: float, files_conf: int | None
) -> list[float] | None:
    """Input files that give the run's maps at its split, when the job listed fewer files
    than it ran maps and equal files would not give them; else ``None``.

    A history names no file: a YARN Grep over a 12 MB and a 3 MB file in 4 MiB blocks ran
    maps of 4, 4, 4 and 3 MiB, which two equal 7.5 MB files cut into 4, 3.5, 4 and 3.5; the
    combiner's counts of the calibration run itself were then missed. Each map below the
    split is one file's last split (``getSplits`` leaves a last split of up to
    :data:`SPLIT_SLOP` splits); the files that ended on a split boundary get one full split
    each and the first short file the other full splits. Any such files give the run's maps
    at its split; which file held which full split is not in the history, so other split
    sizes rest on this reading."""
    n = len(map_bytes)
    if not files_conf or n <= files_conf or split <= 0 or stored <= 0:
        return None
    total = float(sum(map_bytes))
    if abs(total - stored) > EQUAL_SHARE * stored:
        return None
    full = [b for b in map_bytes if abs(b - split) <= EQUAL_SHARE * split]
    tails = sorted((b for b in map_bytes if abs(b - split) > EQUAL_SHARE * split), reverse=True)
    ends = files_conf - len(tails)
    if any(t > SPLIT_SLOP * split for t in tails) or ends < 0 or ends > len(full):
        return None
    if _equal_files_give(map_bytes, stored / files_conf, files_conf, split):
        return None
    files = [float(split)] * ends + list(tails)
    rest = len(full) - ends
    if rest and tails:
        files[ends] += rest * split
    elif rest:
        return None
    return [f * stored / sum(files) for f in files]


def _equal_files_give(map_bytes: Sequence[float], size: float, files: int, split: float) -> bool:
    """Whether ``files`` equal files of ``size`` give maps of ``map_bytes``' sizes, cut as
    the model cuts them (:func:`~mrtune.costmodel.map_groups.split_layout`)."""
    import numpy as np

    from mrtune.costmodel.map_groups import split_layout

    equal = JobProfile(input_bytes=size * files, input_files=files)
    k, full, tail, _ = (float(x) for x in split_layout(equal, np.array(float(split))))
    want = sorted([full] * int(k * files) + ([tail] * files if tail > 0 else []))
    got = sorted(map_bytes)
    return len(want) == len(got) and all(
        abs(a - b) <= EQUAL_SHARE * split for a, b in zip(want, got, strict=True)
    )


def whole_units(job: Any, stored: float, fmt: str, split: float) -> str | None:
    """Why the maps read whole units rather than FileInputFormat's splits, or ``None``.

    ``FileInputFormat.getSplits`` never gives a map more than :data:`SPLIT_SLOP` splits of
    input. When the maps read more than that on average, something else cut the input: an input
    format of the job's own (the examples' ``MultiFileWordCount$MyInputFormat`` packs all its
    files into one map and names no ``Combine`` class), a codec that cannot be split (gzip text
    is one map a file), or files written with larger blocks than the configuration's. Either way
    the run's maps are the units a split-size change cannot cut, so they are kept. Without a
    block or split setting in the configuration the split is a default that the maps
    contradict: the blocks may have been larger (a 2009 Rumen trace's single map read 85.5 MB
    against Hadoop 1's 64 MiB) or the input unsplittable, and a split change could not be
    priced either way, so the maps are kept as well."""
    n_maps = job.n_maps
    keys = (*SPLIT_KEYS, "mapreduce.job.maps") if old_api(job.props) else SPLIT_KEYS
    if n_maps < 1 or stored <= 0:
        return None
    per_map = stored / n_maps
    if per_map <= SPLIT_SLOP * split * (1.0 + EQUAL_SHARE):
        return None
    if not any(k in job.props for k in keys):
        # the default contradicted (equal maps above it set the block: observed_block)
        return (
            f"the maps read {_size(per_map)} each on average, more than FileInputFormat "
            f"gives a map at the default {_size(split)} split ({SPLIT_SLOP} splits), and no "
            "configuration names the block or split size: the blocks were larger or the "
            f"input unsplittable (gzip); the model keeps its {n_maps} map(s), each one "
            "unsplittable unit, so split-size changes are not modelled"
        )
    how = f"the input format {fmt.rsplit('.', 1)[-1]}" if fmt else "the input format"
    return (
        f"the maps read {_size(per_map)} each on average, more than FileInputFormat gives a "
        f"map at a {_size(split)} split ({SPLIT_SLOP} splits): {how}, an "
        "unsplittable codec (gzip) or larger file blocks made the run's maps; the model keeps "
        f"its {n_maps} map(s), each one unsplittable unit, so split-size changes are not "
        "modelled"
    )


def _size(b: float) -> str:
    return f"{b / 2**20:,.1f} MiB" if b >= 2**20 else f"{b:,.0f} B"
