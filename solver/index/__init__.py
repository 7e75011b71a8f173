"""The symmetry-reduced perfect index (its tables and their Numba build) and the
move generation on bit masks, the kernels' view of the rules. May import ``core`` and
``rules``."""
