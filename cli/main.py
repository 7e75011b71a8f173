"""The ``morris`` command: a thin layer over the ``solver`` API.

Each sub-command lives in its own module of this package and registers itself on
``main``; ``COMMAND_MODULES`` lists them. User errors surface as one line and a
non-zero exit (``click.ClickException``), never as a traceback.
"""

from __future__ import annotations

import importlib

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="morris-tablebase")
def main() -> None:
    """Strongly solve the Mill family of games and play perfectly from the tables.

    \b
    Typical use:
      morris show nine "W:a7,d7 B:a1,g1 w h:7,7"   diagram and legal moves
      morris solve three                          build data/three.h5
      morris value three                          value of the start position
      morris probe six "W:a1,c1 B:e5 b h:4,5"      value and every move's value

    Variants: nine, nine-noflying, nine-nocapture-placement, nine-doublemill,
    nine-diagonal, twelve, six, three. Positions are written
    "W:<points> B:<points> <w|b> [h:<white in hand>,<black in hand>]" or as a
    space-separated move list from the start.
    """


COMMAND_MODULES = ("show", "solve", "info", "probe", "value", "play", "verify", "reproduce")

for _name in COMMAND_MODULES:
    importlib.import_module(f"cli.{_name}")
