"""The command line's subcommands for the maker and the household (``pyramid replay``,
``diag``, ``flash``, ``pin``, ``label``), each a module offering ``register(subparsers)``
that :mod:`pyramid_board.cli` assembles. Not to be confused with the game's commands
(:mod:`controller.referee.commands`: what a player asks the referee)."""
