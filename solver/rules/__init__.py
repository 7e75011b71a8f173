"""The game as data and plain Python: boards, variants, positions, the rules,
games, values and their stored codes, the move-limit draw rules, outcomes, sectors and
which of them two variants share. May import ``core``."""
