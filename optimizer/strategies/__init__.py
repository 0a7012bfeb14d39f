"""Search strategies over a :class:`~mrtune.search_spaces.SearchSpace` (DESIGN decision 6).

Every strategy implements :class:`BaseStrategy` and returns a :class:`SearchResult`;
:func:`get_strategy` builds one by its registry name. ``"tpe"`` is the default.
"""

from __future__ import annotations

from typing import Any

from mrtune.optimizer.strategies._base import BaseStrategy, SearchResult
from mrtune.optimizer.strategies._exhaustive import ExhaustiveStrategy
from mrtune.optimizer.strategies._optuna import (
    CmaEsStrategy,
    GridStrategy,
    NSGAIIStrategy,
    OptunaStrategy,
    PlainTPEStrategy,
    TPEStrategy,
)
from mrtune.optimizer.strategies._rrs import RRSStrategy, SmartRRSStrategy
from mrtune.optimizer.strategies._scipy import DifferentialEvolutionStrategy, DualAnnealingStrategy

#: Registry: name → strategy class. Order = the order of listings and benchmarks.
STRATEGIES: dict[str, type[BaseStrategy]] = {
    cls.name: cls
    for cls in (
        TPEStrategy,
        PlainTPEStrategy,
        CmaEsStrategy,
        NSGAIIStrategy,
        GridStrategy,
        DifferentialEvolutionStrategy,
        DualAnnealingStrategy,
        RRSStrategy,
        SmartRRSStrategy,
        ExhaustiveStrategy,
    )
}
DEFAULT_STRATEGY = "tpe"


def get_strategy(name: str = DEFAULT_STRATEGY, **kwargs: Any) -> BaseStrategy:
    """The strategy registered as ``name``, built with ``kwargs``.

    Raises:
        ValueError: an unknown name (the message lists the known ones).
    """
    try:
        cls = STRATEGIES[name]
    except KeyError:
        known = ", ".join(STRATEGIES)
        raise ValueError(f"unknown strategy {name!r}; allowed: {known}") from None
    return cls(**kwargs)


__all__ = [
    "DEFAULT_STRATEGY",
    "STRATEGIES",
    "BaseStrategy",
    "CmaEsStrategy",
    "DifferentialEvolutionStrategy",
    "DualAnnealingStrategy",
    "ExhaustiveStrategy",
    "GridStrategy",
    "NSGAIIStrategy",
    "OptunaStrategy",
    "PlainTPEStrategy",
    "RRSStrategy",
    "SearchResult",
    "SmartRRSStrategy",
    "TPEStrategy",
    "get_strategy",
]
