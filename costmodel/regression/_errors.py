"""Errors of the regression models.

``mrtune.costmodel`` imports no other package of the project, so these derive from ``ValueError``
only; the reader and the CLI turn them into ``mrtune.errors.InputError`` with the file name.
"""

from __future__ import annotations


class RegressionDataError(ValueError):
    """The data cannot support the requested fit.

    Attributes:
        phase: the phase concerned (``None`` for the whole data set).
        field: the data column concerned (e.g. ``"Operation"``), if any.
        value: the offending value, if any.
    """

    def __init__(
        self,
        message: str,
        *,
        phase: str | None = None,
        field: str | None = None,
        value: object = None,
    ) -> None:
        self.phase = phase
        self.field = field
        self.value = value
        super().__init__(message)


class InsufficientDataError(RegressionDataError):
    """A phase has too few rows to fit its model and cross-validate it."""
