"""Checking tables: the independent verifier, the published results
(``known_results.toml``) and per-sector statistics. May import the layers from ``core`` to
``query``, not ``play``."""
