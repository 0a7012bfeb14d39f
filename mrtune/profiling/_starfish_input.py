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
    if not _layout_fits(fitted, inputs):  # split min/max sizes decide; input_from_spec warns
        return config
    notes.warnings.append(
        f"dfs.block.size={config.dfs_blocksize} (split size {config.split_size}) would cut the "
        f"input specification {inputs.path.name}'s splits differently; as in Starfish the "
        f"specification's splits are kept: the model splits the input at {needed} bytes "
        "(HDFS block size is per file)"
    )
    return fitted


def _layout_fits(config: HadoopConfig, inputs: InputSpec) -> bool:
    """Whether ``config.split_size`` cuts the model's input files into the spec's splits."""
    two = two_groups(inputs)
    if two is not None:
        return math.isclose(config.split_size, two[0])
    largest = max(max(s.size for s in inputs.splits), inputs.total_bytes / inputs.num_splits)
    return largest <= SPLIT_SLOP * config.split_size


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


def input_from_spec(
    notes: Notes, inputs: InputSpec, job: StarfishJobProfile, config: HadoopConfig
) -> tuple[float, int, bool]:
    """``(input_bytes, input_files, compressed)`` for the model from an input specification.

    One split size: one file per split. Two sizes that :func:`two_groups` can lay out: that
    many files of full splits plus a tail, so both groups reach the model with their own size.
    Anything else is averaged into equal splits (the total and the count are kept), with a
    warning; the groups are kept in ``cluster_facts["input_split_groups"]`` either way.
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
    sizes = [size for size, _ in groups]
    if len(sizes) == 1:
        notes.provenance["input_layout"] = f"{count} equal splits, one file each"
        return total, count, any(compressed)
    two = two_groups(inputs)
    if two is not None and math.isclose(config.split_size, two[0]):
        full, tail, k, files = two
        notes.provenance["input_layout"] = (
            f"{files} files of {k} splits of {full:.0f} bytes and one of {tail:.0f} bytes "
            f"(the input specification's {k * files} + {files} splits)"
        )
        return total, files, any(compressed)
    why = (
        f"the split size is {config.split_size} bytes, not the larger split"
        if two is not None
        else "mrtune's job model has one full and one tail split size per file"
    )
    notes.warnings.append(
        f"{inputs.path}: {len(sizes)} split sizes ({min(sizes):.0f} .. {max(sizes):.0f} bytes) "
        f"cannot be laid out exactly ({why}); mrtune models {count} equal splits of "
        f"{total / count:.0f} bytes (total and count kept)"
    )
    notes.provenance["input_layout"] = f"averaged: {count} equal splits ({why})"
    return total, count, any(compressed)


def _split_groups(inputs: InputSpec) -> list[tuple[float, int]]:
    """``[(size, splits)]`` largest first, splits of equal size merged."""
    sizes: dict[float, int] = {}
    for g in inputs.splits:
        sizes[g.size] = sizes.get(g.size, 0) + g.num_splits
    return sorted(sizes.items(), reverse=True)
