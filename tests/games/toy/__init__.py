"""Three in a row, a small third game the tests register to prove the seam: a game is a
package of its own (:mod:`.game`, its rules, events, board, words and snapshot parts;
:mod:`.view`, its page), and the referee, the store, the Table and the page take it as
they take the product's two, without a line of theirs changed.

Rules: two players take turns putting a piece of theirs on an empty cell of the 3 × 3
corner a1–c3 of the base; three of one player's in a row, a column or a diagonal wins;
nine pieces without a row are a draw.
"""
