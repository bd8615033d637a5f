"""Ctrl-C during sess.run cancels the step and raises KeyboardInterrupt."""

from conftest import need

need()

import os
import subprocess
import sys
import textwrap

import graphs

SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading, time
    import minitf as tf
    sess = tf.Session(graph=sys.argv[1])
    threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    start = time.monotonic()
    try:
        sess.run("loop/Exit:0", {"n:0": 2**31 - 1})
        print("finished")
    except KeyboardInterrupt:
        print("interrupted after %.1f s" % (time.monotonic() - start))
    # The session runs the next step as before.
    print("next", sess.run("loop/Exit:0", {"n:0": 7}))
    call = sess.make_callable("loop/Exit:0", feed_list=["n:0"])
    threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    try:
        call(2**31 - 1)
        print("finished")
    except KeyboardInterrupt:
        print("callable interrupted")
    print("callable next", call(9))
    # A SIGINT the program ignores does not stop a step.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Timer(0.1, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    print("ignored", sess.run("loop/Exit:0", {"n:0": 50000}))
""")


def test_ctrl_c_cancels_the_step():
    result = subprocess.run([sys.executable, "-c", SCRIPT, graphs.counting_loop()],
                            capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("interrupted after"), result.stdout
    assert float(lines[0].split()[2]) < 10.0
    assert lines[1:] == ["next 7", "callable interrupted", "callable next 9", "ignored 50000"], \
        result.stdout
