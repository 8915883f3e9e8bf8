"""A short soak (bench/soak.py): many whole games, and nothing that grows with them.

Only boundedness is asserted, never a time: the referee's heap and state, and the
product's threads, file descriptors, WAL and memory, sampled after warm-up and at the
end. The long run and its figures are ``bench/soak.py`` and docs/performance.md (2,000
games through the referee, 800 through the product); here 60 and 8, enough to see a leak
of one game's state per game (about 4 KiB) or of a thread, a connection or a file.
"""

from __future__ import annotations

from pathlib import Path

from bench.soak import growth, pure, table


def test_the_referee_plays_game_after_game_in_constant_memory() -> None:
    samples = pure(60, samples=4)
    assert [s.games for s in samples] == [15, 30, 45, 60]
    # Python's heap after a collection, over 30 games: caches filling and a few KiB of
    # noise, not a growth per game (a referee state kept per game would add 120 KiB).
    assert growth(samples, "heap_kib") < 64, [s.values for s in samples]
    sizes = [s.values["state_bytes"] for s in samples]
    assert max(sizes) < 2 * min(sizes), sizes  # the state holds one game, not the evening


def test_the_product_keeps_its_threads_files_wal_and_memory_bounded(tmp_path: Path) -> None:
    samples = table(8, samples=4, folder=tmp_path)
    values = [s.values for s in samples]
    # No thread, connection or file left behind per game: two games lie between two
    # samples, so a leak of one per game adds two at every sample (six in all). One more or
    # fewer at a single sample is a thread at work at that moment (a finished game's review,
    # a page's stream): a run under load once caught one in the first sample (5, 4, 4, 4).
    for key in ("threads", "fds"):
        counts = [v[key] for v in values]
        assert max(counts) - min(counts) <= 1, (key, values)
    # The WAL is copied into the file at each new game: it holds one game, whatever the
    # number played (a game is about 300 KiB of WAL), or two when a reader (a finished
    # game's review, a page's stream) kept one checkpoint from completing, as a loaded
    # machine makes likelier. Never kept, the 8 games would leave about 2.4 MiB.
    assert max(v["wal_kib"] for v in values) < 1024, values
    # The history grows, as it should; the process does not (beyond the allocator's noise).
    assert values[-1]["db_kib"] > values[0]["db_kib"]
    assert growth(samples, "rss_kib") < 8 * 1024, values
    assert values[-1]["stream_events"] > values[0]["stream_events"]  # the page was live
