"""The project's exception root and the user-facing error types.

One root (:class:`MrtuneError`) lets the CLI turn every expected failure into one readable
line and a non-zero exit, while programmatic callers can still catch the built-in base
(``ValueError``) they expect, as scikit-learn's ``InvalidParameterError`` does.
"""

from __future__ import annotations


class MrtuneError(Exception):
    """Root of every error mrtune raises on purpose."""


class InputError(MrtuneError, ValueError):
    """A user-supplied file or value is wrong.

    The message names the file (when there is one), the field, the value and what is allowed,
    so the CLI can print it as a single line.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        field: str | None = None,
        value: object = None,
        allowed: str | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.field = field
        self.value = value
        self.allowed = allowed
        super().__init__(self._render(field))

    def _render(self, field: str | None) -> str:
        path, message, value, allowed = self.path, self.message, self.value, self.allowed
        parts = []
        if path:
            parts.append(f"{path}:")
        if field:
            parts.append(f"{field}:")
        parts.append(message)
        if value is not None:
            parts.append(f"(got {value!r})")
        if allowed:
            parts.append(f"allowed: {allowed}")
        return " ".join(parts)

    def relabeled(self, field: str) -> str:
        """The same message with the field shown as ``field`` (the CLI names its flag here)."""
        return self._render(field)


class JobDidNotSucceed(InputError):
    """The history is of a job that failed or was killed on its cluster, with no successful
    attempt to profile: not mrtune's failure (``batch`` counts it as skipped)."""


class NotCalibratedError(MrtuneError, ValueError, AttributeError):
    """A fitted model was used before ``fit`` was called."""


class ConvergenceWarning(UserWarning):
    """A numerical optimiser stopped before converging."""
