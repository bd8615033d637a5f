import os
import sys

import pytest

# graphs.py beside the tests.
sys.path.insert(0, os.path.dirname(__file__))

import graphs  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def _remove_graph_files():
    yield
    graphs.remove_files()
