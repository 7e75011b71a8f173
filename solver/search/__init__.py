"""A placement position's value by alpha-beta with the moving-phase tables at
the leaves, and a search's deadline and cancel flag. May import the layers from ``core``
to ``solving``."""
