"""What every test shares: hypothesis's profiles, the two tiers, and the groups that
pytest-xdist keeps in one worker.

``ci`` (the default, and what ``make test`` and ``make quick`` run): deterministic. Each
property test draws the same examples on every run and every machine (``derandomize``),
nothing is read from or saved to a local example database, and a failure prints the
``@reproduce_failure`` blob that replays it. A counterexample found is then pinned with
``@example`` beside the test, so that it stays in the suite for good.

``dev`` (``HYPOTHESIS_PROFILE=dev``): random draws, remembered in ``.hypothesis/`` so a
failure found comes back first on the next run: for looking for new counterexamples
while working.

Neither profile times an example: no ``deadline`` (a loaded machine would fail it by
chance, and speed is bench/'s to measure), and in ``ci`` no health check that measures
how long drawing took (``too_slow``, for the same reason). Each test's own ``@settings``
(its number of examples) still applies.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    print_blob=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", print_blob=True, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# -- the two tiers, and what runs side by side -------------------------------------------------

QUICK: dict[str, str] = {
    # What `make quick` runs (-m "not slow"), by path; everything else is marked slow and
    # runs in `make test` only (a new test file starts there: it joins this list once it
    # runs in a moment, with no browser, emulator, broker or program started).
    "tests/rules/test_notation.py": "the rules",
    "tests/rules/test_perlen.py": "the rules",
    "tests/rules/test_pyramidos.py": "the rules",
    "tests/rules/test_records.py": "the rules",
    "tests/referee/": "the referee, in virtual time",
    "tests/store/test_store.py": "the store",
    "tests/store/test_settings.py": "the store's settings",
    "tests/store/test_store_faults.py": "the store's faults",
    "tests/web/test_api.py": "the page's API",
    "tests/web/test_api_doc.py": "the API as docs/api.md says",
    "tests/web/test_bodies.py": "the API's bodies",
    "tests/web/test_events.py": "the live stream",
    "tests/web/test_kinds.py": "the page's games",
    "tests/web/test_limits.py": "the page's limits (wrong PINs, Host names, connections)",
    "tests/serial/test_pico_link.py": "the serial link's conversation, without I/O",
    "tests/remote/test_link.py": "the link between boards, in virtual time",
    "tests/remote/test_wire.py": "its messages",
    "tests/remote/test_pairing.py": "the link bound to its two boards, in virtual time",
    "tests/remote/test_invitation.py": "its invitation codes",
    "tests/remote/test_remote_config.py": "its config",
    "tests/config/": "the config file",
    "tests/table/test_guidance.py": "the LED guidance",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--quick",
        action="store_true",
        help="only the quick tier (tests/conftest.py's QUICK): the other files are not even "
        "imported, as -m 'not slow' would",
    )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if not config.getoption("quick"):
        return None
    try:
        path = collection_path.relative_to(config.rootpath).as_posix()
    except ValueError:
        return None
    if path == ".":
        return None
    if collection_path.is_dir():
        inside = path + "/"
        return not any(q.startswith(inside) or inside.startswith(q) for q in QUICK)
    return not any(path.startswith(prefix) for prefix in QUICK)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = item.nodeid.split("::")[0]
        if not any(path.startswith(prefix) for prefix in QUICK):
            item.add_marker(pytest.mark.slow)
        # pytest-xdist (--dist loadgroup): the tests that share a module's fixture (a browser,
        # an emulated Pico, a served rig) run in one worker, so it is made once; the others
        # go wherever a worker is free.
        if isinstance(item, pytest.Function) and any(
            defs[-1].scope in ("module", "package", "class")
            for defs in item._fixtureinfo.name2fixturedefs.values()
        ):
            item.add_marker(pytest.mark.xdist_group(path))
