"""Runs one test file with pytest, as ctest's python/* tests do.

Where this Python has no pytest (a build carried to another machine,
../shared/gpu/, may meet a Python without it), it says so in the words
ctest's SKIP_REGULAR_EXPRESSION reads, and ctest reports the test as
skipped, not passed; everything else is pytest's to judge.

    python3 run_pytest.py tests/test_session.py
"""
import importlib.util
import sys


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(f"usage: {argv[0]} TEST_FILE", file=sys.stderr)
        return 2
    if importlib.util.find_spec("pytest") is None:
        print(f"minitf python skipped: no pytest for {sys.executable}")
        return 0
    import pytest
    return int(pytest.main(["-q", "-rs", "-p", "no:cacheprovider", argv[1]]))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
