"""Search strategies over a :class:`~mrtune.search_spaces.SearchSpace` (DESIGN decision 6).

Every strategy implements :class:`BaseStrategy` and returns a :class:`SearchResult`;
:func:`get_strategy` builds one by its registry name, with its settings (for the Optuna ones,
where the study is kept). ``"tpe"`` is the default; :func:`resolve_strategy` states the one rule
that picks another (a Pareto objective needs a multi-objective strategy). ``"descent"`` is the
lean grid descent for many tiny searches: the batch tuner runs it (stepwise, many jobs in
lockstep), and ``mrtune optimize --strategy descent`` runs the same search for one job.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mrtune.optimizer.strategies._base import BaseStrategy, SearchResult, StudyError

if TYPE_CHECKING:
    from mrtune.optimizer.strategies._descent import DescentStrategy
    from mrtune.optimizer.strategies._exhaustive import ExhaustiveStrategy
    from mrtune.optimizer.strategies._optuna import (
        OptunaStrategy,
        PlainTPEStrategy,
        TPEStrategy,
    )
    from mrtune.optimizer.strategies._optuna_samplers import (
        CmaEsStrategy,
        GridStrategy,
        NSGAIIStrategy,
    )
    from mrtune.optimizer.strategies._rrs import RRSStrategy, SmartRRSStrategy
    from mrtune.optimizer.strategies._scipy import (
        DifferentialEvolutionStrategy,
        DualAnnealingStrategy,
    )

#: Where each strategy lives: name → (module, class). Order = the order of listings and
#: benchmarks. A strategy's module is imported only when the strategy is asked for, so a
#: command that never searches (``whatif``, ``profile``) does not pay for Optuna (~0.1 s) or
#: ``scipy.optimize`` (~0.5 s) at start-up (issue 13's start-up goals).
_WHERE: dict[str, tuple[str, str]] = {
    "tpe": ("_optuna", "TPEStrategy"),
    "tpe-plain": ("_optuna", "PlainTPEStrategy"),
    "cmaes": ("_optuna_samplers", "CmaEsStrategy"),
    "nsga2": ("_optuna_samplers", "NSGAIIStrategy"),
    "grid": ("_optuna_samplers", "GridStrategy"),
    "de": ("_scipy", "DifferentialEvolutionStrategy"),
    "dual-annealing": ("_scipy", "DualAnnealingStrategy"),
    "rrs": ("_rrs", "RRSStrategy"),
    "smart-rrs": ("_rrs", "SmartRRSStrategy"),
    "exhaustive": ("_exhaustive", "ExhaustiveStrategy"),
    "descent": ("_descent", "DescentStrategy"),
}
#: The registered names, without importing any strategy (for help texts and listings).
STRATEGY_NAMES: tuple[str, ...] = tuple(_WHERE)
_CLASS_MODULE = {cls: mod for mod, cls in _WHERE.values()} | {"OptunaStrategy": "_optuna"}


def _load(module: str, attr: str) -> Any:
    return getattr(importlib.import_module(f"{__name__}.{module}"), attr)


def _registry() -> dict[str, type[BaseStrategy]]:
    """Registry: name → strategy class (imports every strategy's module)."""
    return {name: _load(*where) for name, where in _WHERE.items()}


def __getattr__(name: str) -> Any:
    """PEP 562: ``STRATEGIES`` and the strategy classes are resolved on first use."""
    if name == "STRATEGIES":
        return _registry()
    if name in _CLASS_MODULE:
        return _load(_CLASS_MODULE[name], name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


DEFAULT_STRATEGY = "tpe"
#: The strategy used for a Pareto (time and GB-seconds) objective when none is named.
DEFAULT_PARETO_STRATEGY = "nsga2"
_STUDY_SETTINGS = ("storage", "study_name", "resume")


def _strategy_class(name: str) -> type[BaseStrategy]:
    try:
        where = _WHERE[name]
    except KeyError:
        known = ", ".join(STRATEGY_NAMES)
        raise ValueError(f"unknown strategy {name!r}; allowed: {known}") from None
    return _load(*where)


def storing_strategies() -> list[str]:
    """Names of the strategies that keep an Optuna study (storage, study name, resume)."""
    return [n for n, c in _registry().items() if c.uses_storage]


def multi_objective_strategies() -> list[str]:
    """Names of the strategies that search job time and GB-seconds together."""
    return [n for n, c in _registry().items() if c.multi_objective]


def resolve_strategy(name: str | None, objective: str) -> str:
    """The strategy to run: ``name``, or the default for ``objective`` when ``name`` is None.

    The rule is explicit, never a silent swap: with no name, ``pareto`` runs
    :data:`DEFAULT_PARETO_STRATEGY` and every other objective :data:`DEFAULT_STRATEGY`; a
    named strategy that cannot search a Pareto front is refused for ``pareto``.

    Raises:
        ValueError: an unknown name, or a single-objective strategy for ``pareto``.
    """
    if name is None:
        return DEFAULT_PARETO_STRATEGY if objective == "pareto" else DEFAULT_STRATEGY
    cls = _strategy_class(name)
    if objective == "pareto" and not cls.multi_objective:
        multi = ", ".join(multi_objective_strategies())
        raise ValueError(
            f"strategy {name!r} searches one objective, so it cannot give a Pareto front; "
            f"allowed: {multi}"
        )
    return name


def get_strategy(name: str = DEFAULT_STRATEGY, **kwargs: Any) -> BaseStrategy:
    """The strategy registered as ``name``, built with ``kwargs``.

    ``storage``, ``study_name`` and ``resume`` (where the Optuna study is kept) are accepted by
    every name so callers need not know which strategies store trials: at their neutral values
    (``None``, ``None``, ``False``) they are dropped for the others, and a strategy that keeps
    no study refuses any other value.

    Raises:
        ValueError: an unknown name (the message lists the known ones), or study settings for
            a strategy that keeps no study.
    """
    cls = _strategy_class(name)
    if not cls.uses_storage:
        given = [k for k in _STUDY_SETTINGS if kwargs.pop(k, None) not in (None, False)]
        if given:
            what = "resume" if "resume" in given else "store"
            raise ValueError(
                f"strategy {name!r} keeps no study, so it cannot {what} one ({', '.join(given)}); "
                f"allowed: {', '.join(storing_strategies())}"
            )
    return cls(**kwargs)


__all__ = [
    "DEFAULT_PARETO_STRATEGY",
    "DEFAULT_STRATEGY",
    "STRATEGIES",
    "STRATEGY_NAMES",
    "BaseStrategy",
    "CmaEsStrategy",
    "DescentStrategy",
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
    "StudyError",
    "TPEStrategy",
    "get_strategy",
    "multi_objective_strategies",
    "resolve_strategy",
    "storing_strategies",
]
