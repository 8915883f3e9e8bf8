"""How the page shows each game: one folder per game (:mod:`.perlen`, :mod:`.pyramidos`),
each with its :class:`~web_ui.games.view.GameView`, its drawings and its templates.

:mod:`.registry` is the one place that names them; the page's shared views and templates
ask the view of the game they show, never a game's name. This file imports nothing.
"""
