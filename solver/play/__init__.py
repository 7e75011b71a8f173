"""Playing: the engine, the table-free alpha-beta, the fallible opponents and their
model of error, the review of a played game. May import the layers from ``core`` to
``query``, not ``check``."""
