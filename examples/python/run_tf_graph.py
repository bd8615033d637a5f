"""Runs a training graph TensorFlow wrote, from its file, through minitf's
Python Session: the variables' initializer once, then N training steps,
printing the loss and the time of each step.

    PYTHONPATH=build/python python3 examples/python/run_tf_graph.py \\
        tests/fixtures/tf/resnet50_train/graph.pb --init init --target train \\
        --loss loss:0 --steps 3 --random-feeds images:0=float32:32,224,224,3 \\
        --random-feeds labels:0=int32:32:1000 [--device GPU]

(after `pip install .`, without PYTHONPATH). Feeds come from .npy files
(--feed name=file.npy) or are random (--random-feeds name=dtype:shape[:high]).
"""

import argparse
import time

import numpy as np

import minitf as tf


def parse_random_feed(spec: str, rng: np.random.Generator):
    name, rest = spec.split("=", 1)
    parts = rest.split(":")
    dtype = np.dtype(parts[0])
    shape = [int(d) for d in parts[1].split(",")]
    if np.issubdtype(dtype, np.integer):
        high = int(parts[2]) if len(parts) > 2 else 2
        return name, rng.integers(0, high, size=shape, dtype=dtype)
    return name, rng.standard_normal(shape).astype(dtype)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("graph", help=".pb or .pbtxt file")
    parser.add_argument("--init", default="init", help="the initializer node ('' for none)")
    parser.add_argument("--target", default="train", help="the training node")
    parser.add_argument("--loss", default="loss:0", help="the loss tensor")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--feed", action="append", default=[], help="name=file.npy")
    parser.add_argument("--random-feeds", action="append", default=[],
                        help="name=dtype:d0,d1,...[:high]")
    parser.add_argument("--device", default="CPU", choices=["CPU", "GPU"],
                        help="GPU: SimGPU here, the CUDA device where there is one")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    feeds = dict(parse_random_feed(s, rng) for s in args.random_feeds)
    for spec in args.feed:
        name, path = spec.split("=", 1)
        feeds[name] = np.load(path)

    config = {"device_count": {"GPU": 0}} if args.device == "CPU" else None
    with tf.Session(graph=args.graph, config=config) as sess:
        print("devices:", ", ".join(d.name for d in sess.list_devices()))
        if args.init:
            sess.run(args.init)
        step = sess.make_callable([args.loss, args.target], feed_list=list(feeds))
        for i in range(args.steps):
            start = time.perf_counter()
            loss, _ = step(*feeds.values())
            print(f"step {i}: loss {float(loss):.6g}  {1e3 * (time.perf_counter() - start):.1f} ms")


if __name__ == "__main__":
    main()
