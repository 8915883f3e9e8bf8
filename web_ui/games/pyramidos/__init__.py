"""Pyramidos on the page: its view (:mod:`.view`), its drawing (:mod:`.drawing`), its
words (:mod:`.labels`) and its templates (``templates/``). This file imports nothing."""
