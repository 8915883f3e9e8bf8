"""The composition root: the ``pyramid`` command line (:mod:`.cli`) and ``pyramid run``
(:mod:`.run`), which builds the board, the store, the Table, the link and the page and
sits above all of them. Nothing imports this package: ``controller`` is below the page it
serves (``web_ui``), and both are below this.
"""
