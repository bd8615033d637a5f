"""Trains an MLP built in Python, TensorFlow 1.x style, on points in the
plane labelled by which of three rings around the origin they fall in (the
data of examples/train_mlp.cc), and prints the loss and the accuracy.

    PYTHONPATH=build/python python3 examples/python/train_mlp.py [--steps 500] [--device GPU]
"""

import argparse

import numpy as np

import minitf as tf


def rings(n: int, classes: int, rng: np.random.Generator):
    """Points with radius in [0, classes), labelled by floor(radius)."""
    radius = rng.uniform(0.0, classes, n)
    angle = rng.uniform(0.0, 2 * np.pi, n)
    points = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    return points.astype(np.float32), np.floor(radius).astype(np.int32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--device", default="CPU", choices=["CPU", "GPU"])
    args = parser.parse_args()
    classes, rng = 3, np.random.default_rng(1234)
    points, labels = rings(1024, classes, rng)

    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.int32, [None], name="labels")
    w1 = tf.Variable(rng.normal(0, 0.5, [2, args.hidden]).astype(np.float32), name="w1")
    b1 = tf.Variable(np.zeros([args.hidden], np.float32), name="b1")
    w2 = tf.Variable(rng.normal(0, 0.5, [args.hidden, args.hidden]).astype(np.float32), name="w2")
    b2 = tf.Variable(np.zeros([args.hidden], np.float32), name="b2")
    w3 = tf.Variable(rng.normal(0, 0.5, [args.hidden, classes]).astype(np.float32), name="w3")
    b3 = tf.Variable(np.zeros([classes], np.float32), name="b3")
    hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
    hidden = tf.nn.relu(tf.matmul(hidden, w2) + b2)
    logits = tf.matmul(hidden, w3) + b3
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    correct = tf.equal(tf.argmax(logits, 1, output_type=tf.int32), y)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

    config = {"device_count": {"GPU": 0}} if args.device == "CPU" else None
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        feeds = {x: points, y: labels}
        for step in range(args.steps + 1):
            if step % 100 == 0:
                print(f"step {step}: loss {sess.run(loss, feeds):.4f}")
            sess.run(train, feeds)
        print(f"accuracy {sess.run(accuracy, feeds):.3f} on {len(points)} examples")


if __name__ == "__main__":
    main()
