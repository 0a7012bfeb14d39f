"""Starfish input specifications → the input mrtune's job model sees (split layout, block size).

:func:`input_from_spec` turns the specification's split groups into ``input_bytes`` and
``input_files`` for :class:`~mrtune.costmodel.profile.JobProfile`, :func:`fit_block_size` makes
the configuration's split size reproduce the specification's splits. Used by
:func:`mrtune.profiling.starfish.load_starfish`.
"""

from __future__ import annotations

import math
from typing import Protocol

from mrtune.costmodel.config import HadoopConfig
from mrtune.costmodel.job import SPLIT_SLOP
from mrtune.errors import InputError
from mrtune.readers.starfish import HADOOP1_BLOCK_SIZE, InputSpec, StarfishJobProfile


class Notes(Protocol):
    """Where the input layout's warnings, provenance and facts go (the profile assembler)."""

    warnings: list[str]
    provenance: dict[str, str]
    facts: dict[str, float | str]


def fit_block_size(notes: Notes, config: HadoopConfig, inputs: InputSpec) -> HadoopConfig:
    """The configuration with the input files' block size that cuts the specification's splits.

    Starfish's what-if keeps the input specification's splits whatever the configuration says.
    In Hadoop the splits follow each input file's own block size (HDFS block size is per file,
    ``FileInputFormat.computeSplitSize``), which the job's ``dfs.block.size`` need not be; mrtune's
    model cuts the input at ``config.split_size``. So when the configured size would cut the
    specification's splits differently, the reader uses the size that reproduces them, and says so.
    """
    two = two_groups(inputs)
    needed = math.ceil(max(s.size for s in inputs.splits))
    if two is None:
        needed = max(HADOOP1_BLOCK_SIZE, needed)
    if _layout_fits(config, inputs):
        return config
    fitted = config.with_changes({"dfs.blocksize": needed})
    if not _layout_fits(fitted, inputs):  # split min/max sizes decide
        return config
    notes.warnings.append(
        f"dfs.block.size={config.dfs_blocksize} (split size {config.split_size}) would cut the "
        f"input specification {inputs.path.name}'s splits differently; as in Starfish the "
        f"specification's splits are kept: the model splits the input at {needed} bytes "
        "(HDFS block size is per file)"
    )
    return fitted


def _layout_fits(config: HadoopConfig, inputs: InputSpec) -> bool:
    """Whether ``config.split_size`` gives the model's files exactly the spec's splits: two
    sizes :func:`two_groups` lays out need the larger split as the split size; any other
    layout (one file per split, :func:`input_from_spec`) needs every split kept whole."""
    two = two_groups(inputs)
    if two is not None:
        return math.isclose(config.split_size, two[0])
    return max(s.size for s in inputs.splits) <= SPLIT_SLOP * config.split_size


def two_groups(inputs: InputSpec) -> tuple[float, float, int, int] | None:
    """``(full, tail, k, files)`` when the splits are ``k × files`` of one size and ``files``
    of a smaller one, else None.

    mrtune's job model (``costmodel.job.split_layout``) cuts each of ``input_files`` equal files
    into ``k`` full splits and one tail split and models the two kinds of map apart. Such an
    input spec (Starfish's TeraSort sample: 200 × 128 MB + 100 × 30 MB) is exactly ``files``
    files of ``k`` full splits and one tail, provided ``FileInputFormat``'s 10% slop would not
    fold the tail into the last full split (tail > 0.1 × full) and the input is splittable.
    """
    groups = _split_groups(inputs)
    if len(groups) != 2 or any(g.compress for g in inputs.splits):
        return None
    (full, n_full), (tail, n_tail) = groups
    if n_full % n_tail or tail <= (SPLIT_SLOP - 1.0) * full:
        return None
    return full, tail, n_full // n_tail, n_tail


#: A class of splits the model keeps apart: ``(input_index, split bytes, splits)``.
SplitClass = tuple[int, float, int]


def input_from_spec(
    notes: Notes, inputs: InputSpec, job: StarfishJobProfile, config: HadoopConfig
) -> tuple[float, int, bool, list[SplitClass]]:
    """``(input_bytes, input_files, compressed, classes)`` for the model from an input
    specification.

    One input (one ``<map_profile>``) of one split size: one file per split. Two sizes that
    :func:`two_groups` can lay out: that many files of full splits plus a tail, so both
    groups reach the model with their own size. Anything else (three or more sizes, two
    sizes :func:`two_groups` cannot lay out, several inputs with their own map profiles):
    one class of map tasks per input and split size (``classes``, largest first, each split
    one file of its own size, :class:`~mrtune.costmodel.profile.MapClass`), as Starfish's
    What-if Engine prices every split group at its size with its input's map profile. The
    groups are kept in ``cluster_facts["input_split_groups"]`` either way.
    """
    indexes = {s.input_index for s in inputs.splits}
    unknown = indexes - {m.input_index for m in job.maps}
    if unknown:
        raise InputError(
            f"input_index {sorted(unknown)} has no <map_profile> in {job.path.name}",
            path=str(inputs.path),
            field="split/@input_index",
        )
    compressed = [s.compress for s in inputs.splits]
    if len(set(compressed)) > 1:
        notes.warnings.append(
            f"{inputs.path}: some splits are compressed and some are not; mrtune models one "
            "input and treats all of it as compressed"
        )
    total, count = inputs.total_bytes, inputs.num_splits
    groups = _split_groups(inputs)
    notes.facts["input_split_groups"] = " + ".join(f"{n} x {size:.0f}" for size, n in groups)
    notes.facts["input_splits"] = float(count)
    several = len(job.maps) > 1
    if len(groups) == 1 and not several:
        notes.provenance["input_layout"] = f"{count} equal splits, one file each"
        return total, count, any(compressed), []
    two = two_groups(inputs)
    if not several and two is not None and math.isclose(config.split_size, two[0]):
        full, tail, k, files = two
        notes.provenance["input_layout"] = (
            f"{files} files of {k} splits of {full:.0f} bytes and one of {tail:.0f} bytes "
            f"(the input specification's {k * files} + {files} splits)"
        )
        return total, files, any(compressed), []
    classes = _classes(inputs)
    notes.provenance["input_layout"] = (
        f"{len(classes)} classes of map tasks, each split one file: "
        + " + ".join(f"input {i}: {n} x {size:.0f}" for i, size, n in classes)
    )
    return total, count, any(compressed), classes


def _classes(inputs: InputSpec) -> list[SplitClass]:
    """The specification's splits by input and size, largest first."""
    by: dict[tuple[int, float], int] = {}
    for g in inputs.splits:
        by[(g.input_index, g.size)] = by.get((g.input_index, g.size), 0) + g.num_splits
    return sorted(((i, size, n) for (i, size), n in by.items()), key=lambda c: (-c[1], c[0]))


def profiled_classes(job: StarfishJobProfile) -> list[SplitClass]:
    """Without an input specification, several map profiles: one class per profile, its
    ``num_tasks`` splits of its average ``HDFS_BYTES_READ`` (one input each)."""
    if len(job.maps) < 2:
        return []
    return sorted(
        (
            (m.input_index, float(m.counters.get("HDFS_BYTES_READ", 0.0)), m.num_tasks)
            for m in job.maps
        ),
        key=lambda c: (-c[1], c[0]),
    )


def _split_groups(inputs: InputSpec) -> list[tuple[float, int]]:
    """``[(size, splits)]`` largest first, splits of equal size merged."""
    sizes: dict[float, int] = {}
    for g in inputs.splits:
        sizes[g.size] = sizes.get(g.size, 0) + g.num_splits
    return sorted(sizes.items(), reverse=True)
