"""Trains a 2-layer perceptron built in Python, TensorFlow 1.x style: the
model of examples/train_mlp.cc (the same data from minitf.datasets.rings,
the same seeded initial weights, the same optimizer), so both print the same
losses. The data: points in the plane, labelled by which of three rings
around the origin they fall in.

    PYTHONPATH=build/python python3 examples/python/train_mlp.py \\
        [--steps 300] [--learning_rate 0.5] [--print_every 20] [--device CPU|GPU]

Prints "step <n> loss <value>" every few steps, then the final accuracy.
"""

import argparse

import numpy as np

import minitf as tf
from minitf import datasets

HIDDEN, CLASSES, EXAMPLES = 32, 3, 512


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--learning_rate", type=float, default=0.5)
    parser.add_argument("--print_every", type=int, default=20)
    parser.add_argument("--device", choices=["CPU", "GPU"], default=None,
                        help="where the model runs (default: the placer's choice)")
    args = parser.parse_args()

    with tf.device(f"/device:{args.device}:0" if args.device else ""):
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        labels = tf.placeholder(tf.int32, [None], name="labels")
        # The model, forward only: logits = relu(x W1 + b1) W2 + b2.
        w1 = tf.Variable(tf.random_normal([2, HIDDEN], seed=1), name="w1")
        b1 = tf.Variable(tf.zeros([HIDDEN]), name="b1")
        w2 = tf.Variable(tf.random_normal([HIDDEN, CLASSES], seed=2) * 0.25, name="w2")
        b2 = tf.Variable(tf.zeros([CLASSES]), name="b2")
        hidden = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
        logits = tf.nn.bias_add(tf.matmul(hidden, w2), b2)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits), axis=0)
        train = tf.train.GradientDescentOptimizer(args.learning_rate).minimize(loss)
    init = tf.global_variables_initializer()
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1, tf.int32), labels),
                                      tf.float32))

    points, classes = datasets.rings(EXAMPLES, CLASSES, seed=1234)
    feeds = {x: points, labels: classes}
    # Ops without a kernel on the requested device run on the CPU.
    with tf.Session(config={"allow_soft_placement": True}) as sess:
        sess.run(init)
        for step in range(1, args.steps + 1):
            value, _ = sess.run([loss, train], feeds)
            if step % args.print_every == 0 or step == 1:
                print(f"step {step} loss {value:.4f}")
        print(f"accuracy {sess.run(accuracy, feeds):.3f} on {EXAMPLES} examples")


if __name__ == "__main__":
    main()
