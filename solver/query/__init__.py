"""Questions answered from the tables: ``Tablebase`` and what it answers, the
game's values as a probe reads them, the values under the draw rule, the search's route
for placement positions a file lacks. May import the layers from ``core`` to ``search``."""
