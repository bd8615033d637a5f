"""The README's Python section runs as written (from the repository root)."""

from conftest import need

need()

import os
import re
import subprocess
import sys

ROOT = os.environ.get("MINITF_SOURCE_DIR", ".")


def test_readme_python_examples_run():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    section = text[text.index("## Python\n"):text.index("\n## ", text.index("## Python\n") + 1)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 2
    script = "\n".join(blocks) + "\nprint('loss', float(loss))\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=ROOT, env=dict(os.environ), timeout=300)
    assert result.returncode == 0, result.stderr
    assert "loss" in result.stdout.splitlines()[-1]
