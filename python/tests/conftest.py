import glob
import importlib
import os
import sys
import sysconfig

import pytest

# graphs.py beside the tests.
sys.path.insert(0, os.path.dirname(__file__))


def skip_file(reason: str) -> None:
    """Skips the calling test file, with the reason (``-rs`` prints it):
    ctest reports the test as skipped (its SKIP_REGULAR_EXPRESSION), not as
    passed."""
    pytest.skip(f"minitf python skipped: {reason}", allow_module_level=True)


def need(*modules: str) -> None:
    """Called first by every test file: skips it where this Python cannot
    run the package (a build carried to another machine, ../shared/gpu/,
    may meet another Python there than the one its module was built for;
    the same Python failing to import it is a failure), or lacks one of
    `modules`."""
    packages = [os.path.join(p, "minitf") for p in sys.path
                if os.path.isdir(os.path.join(p, "minitf"))]
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    if packages and not glob.glob(os.path.join(packages[0], "_minitf" + suffix)) and \
            glob.glob(os.path.join(packages[0], "_minitf*.so")):
        skip_file(f"its module was built for another Python than {sys.executable} ({suffix})")
    for module in ("numpy",) + modules:
        try:
            importlib.import_module(module)
        except ImportError:
            skip_file(f"no {module} for {sys.executable}")


import graphs  # noqa: E402

# A session of the CPU alone (SimGPU would model its time).
CPU = {"device_count": {"GPU": 0}}


@pytest.fixture
def graph():
    """A new Graph, the default one for the test."""
    import minitf
    g = minitf.Graph()
    with g.as_default():
        yield g


@pytest.fixture(autouse=True, scope="session")
def _remove_graph_files():
    yield
    graphs.remove_files()
