from .probe import MissingSectorError, MoveValue, Tablebase  # noqa: F401
