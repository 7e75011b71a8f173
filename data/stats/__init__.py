"""The published per-sector statistics, ``VARIANT.json`` as ``morris info --json`` writes
them: installed as the package ``morris_solver.published_stats`` (pyproject.toml maps it to this
folder), which ``morris_solver.check.stats.published_statistics`` reads. A package, not a namespace,
so that an editable install finds it too."""
