"""The tunable Hadoop settings: one registry (:data:`KNOBS`), constraints, and search spaces."""

from mrtune.search_spaces.constraints import CONSTRAINTS, Constraint
from mrtune.search_spaces.knobs import KNOBS, KNOBS_BY_NAME, Knob, find_knob
from mrtune.search_spaces.space import SearchSpace, knob_property_names, knob_to_properties

__all__ = [
    "CONSTRAINTS",
    "KNOBS",
    "KNOBS_BY_NAME",
    "Constraint",
    "Knob",
    "SearchSpace",
    "find_knob",
    "knob_property_names",
    "knob_to_properties",
]
