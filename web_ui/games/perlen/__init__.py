"""Perlen-Pyramide on the page: its view (:mod:`.view`), its drawings (:mod:`.drawing`),
its words (:mod:`.labels`), the pictures of its rules (:mod:`.pictures`) and its templates
(``templates/``). This file imports nothing."""
