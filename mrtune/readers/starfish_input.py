"""Starfish's input specification: the splits a what-if question runs on (issue 9).

Starfish's ``XMLInputSpecsParser`` reads ``<input>`` → ``<split input_index num_splits size
compress/>`` elements, one per group of equal splits, sizes in bytes (Starfish's TeraSort
sample: 200 × 128 MB and 100 × 30 MB); other root names are accepted too. Apart from the job
profile's parser (:mod:`mrtune.readers.starfish`, which re-exports these names) because the
file is a separate input of the What-if Engine: a profile is read without one, and
:mod:`mrtune.profiling._starfish_input` turns it into the model's input layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mrtune.errors import InputError
from mrtune.readers._starfish_xml import _bool, _number, _parse, _unknown_attributes

__all__ = ["InputSpec", "SplitGroup", "read_input_spec"]


@dataclass(frozen=True)
class SplitGroup:
    """``<split input_index num_splits size compress/>``: ``num_splits`` splits of ``size`` bytes."""

    input_index: int
    num_splits: int
    size: float
    compress: bool


@dataclass
class InputSpec:
    """A parsed input specification."""

    path: Path
    splits: list[SplitGroup]
    warnings: list[str] = field(default_factory=list)

    @property
    def total_bytes(self) -> float:
        return sum(s.num_splits * s.size for s in self.splits)

    @property
    def num_splits(self) -> int:
        return sum(s.num_splits for s in self.splits)


def read_input_spec(path: str | Path) -> InputSpec:
    """Parse a Starfish input specification: ``<split …/>`` elements (sizes in bytes)."""
    path = Path(path)
    root = _parse(path, None)
    warnings: list[str] = []
    groups: list[SplitGroup] = []
    for i, el in enumerate(root.iter("split")):
        where = f"{root.tag}/split[{i}]"
        _unknown_attributes(
            el, ("input_index", "num_splits", "size", "compress"), path, where, warnings
        )
        groups.append(
            SplitGroup(
                input_index=int(
                    _number(
                        el.get("input_index", "0"), path, where + "/@input_index", integer=True
                    )
                ),
                num_splits=int(
                    _number(
                        el.get("num_splits"), path, where + "/@num_splits", integer=True, minimum=1
                    )
                ),
                size=_number(el.get("size"), path, where + "/@size", minimum=1),
                compress=_bool(el.get("compress"), path, where + "/@compress"),
            )
        )
    if not groups:
        raise InputError(
            "no <split input_index=… num_splits=… size=… compress=…/> element",
            path=str(path),
            field=root.tag,
        )
    return InputSpec(path=path, splits=groups, warnings=warnings)
