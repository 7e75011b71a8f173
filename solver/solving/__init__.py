"""Making the tables: the retrograde analysis, ``solve()`` and its schedule of
groups, snapshots within a group, the solve on a Dask cluster. May import ``core``,
``rules``, ``index`` and ``tables``."""
