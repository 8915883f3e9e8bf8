"""Invitation codes: readable aloud, random, and every typing slip told at once."""

from __future__ import annotations

import itertools

import pytest

from controller.remote.invitation import (
    ALPHABET,
    CODE_BITS,
    CODE_LENGTH,
    InvitationError,
    new_code,
    parse_code,
)


def test_the_alphabet_has_no_character_that_reads_as_another() -> None:
    assert len(ALPHABET) == len(set(ALPHABET)) == 32
    assert not set(ALPHABET) & set("0O1I")
    assert CODE_BITS == 55


def test_new_codes_are_three_groups_of_four_that_parse_to_themselves() -> None:
    codes = {new_code() for _ in range(2000)}
    assert len(codes) == 2000  # 55 random bits: no two alike
    for code in list(codes)[:200]:
        groups = code.split("-")
        assert [len(g) for g in groups] == [4, 4, 4]
        assert set("".join(groups)) <= set(ALPHABET)
        assert parse_code(code) == code
        assert parse_code(f"  {code.lower().replace('-', ' ')} ") == code
    # Every symbol turns up in every place (the generator uses the whole alphabet).
    for place in range(CODE_LENGTH - 1):
        assert {c.replace("-", "")[place] for c in codes} == set(ALPHABET)


def test_every_single_mistyped_character_is_told() -> None:
    for code in (new_code() for _ in range(20)):
        letters = code.replace("-", "")
        for place, wrong in itertools.product(range(CODE_LENGTH), ALPHABET):
            if wrong != letters[place]:
                typed = letters[:place] + wrong + letters[place + 1 :]
                with pytest.raises(InvitationError, match="mistyped"):
                    parse_code(typed)


def test_every_swap_of_two_different_characters_is_told() -> None:
    for code in (new_code() for _ in range(20)):
        letters = list(code.replace("-", ""))
        for i, j in itertools.combinations(range(CODE_LENGTH), 2):
            if letters[i] != letters[j]:
                swapped = letters.copy()
                swapped[i], swapped[j] = swapped[j], swapped[i]
                with pytest.raises(InvitationError, match="mistyped"):
                    parse_code("".join(swapped))


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("5A4L-KPRX-AC7", "12 characters in three groups of four, not 11"),
        ("5A4L-KPRX-AC7H-A", "not 13"),
        ("", "not 0"),
        ("5A4L-KPRX-AC70", "no 0 \\(zero\\) or O"),
        ("5A4L-KPRX-OC7H", "no 0 \\(zero\\) or O"),
        ("5A4L-KPRX-1C7H", "no 1 \\(one\\) or I"),
        ("5A4L-KPRX-IC7H", "no 1 \\(one\\) or I"),
        ("5A4L-KPRX-AC7!", "not '!'"),
        ("5A4L-KPRX-AÇ7T", "not 'Ç'"),
    ],
)
def test_what_is_no_code_is_said(typed: str, said: str) -> None:
    with pytest.raises(InvitationError, match=said):
        parse_code(typed)
