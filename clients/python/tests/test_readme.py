"""The README's first example passes as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_first_python_example_of_the_readme_passes(pytester: pytest.Pytester) -> None:
    first = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert first is not None, "the README has no python example"
    pytester.makepyfile(test_readme_example=first.group(1))

    pytester.runpytest().assert_outcomes(passed=1)
