"""The README's examples pass as written: its first test, and every block marked ``pytest``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
TEXT = README.read_text(encoding="utf-8")
MARKED = re.findall(r"^```python pytest\n(.*?)^```", TEXT, re.S | re.M)


def test_the_first_python_example_of_the_readme_passes(pytester: pytest.Pytester) -> None:
    first = re.search(r"```python\n(.*?)```", TEXT, re.S)
    assert first is not None, "the README has no python example"
    pytester.makepyfile(test_readme_example=first.group(1))

    pytester.runpytest().assert_outcomes(passed=1)


def test_the_readme_shows_a_receiver_and_a_back_off_that_run() -> None:
    assert any("verify_webhook" in block and "ThreadingHTTPServer" in block for block in MARKED)
    assert any("sleeps.calls" in block for block in MARKED)


@pytest.mark.parametrize("block", MARKED, ids=[f"block{i}" for i in range(len(MARKED))])
def test_each_pytest_block_of_the_readme_passes(pytester: pytest.Pytester, block: str) -> None:
    tests = len(re.findall(r"^def test_", block, re.M))
    pytester.makepyfile(test_readme_block=block)

    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=tests)


def test_every_block_says_what_it_is_and_none_gives_registry_advice() -> None:
    fences = re.findall(r"^```(\w+)(.*)$", TEXT, re.M)
    first_python = fences.index(("python", ""))
    for index, (language, mark) in enumerate(fences):
        if language in ("python", "sh") and index != first_python:
            assert mark.strip() in ("pytest", "no-run"), f"a {language} block without its mark: {mark!r}"
    assert not re.search(r"npm (?:install|i|add) (?:--save-dev |-D )?svc-sandbox(?![-\w./])", TEXT)
