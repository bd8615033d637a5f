"""Small tf.compat.v1 layer builders.

TensorFlow 2.21 ships Keras 3, which drops tf.compat.v1.layers; these helpers
write the same nodes those layers wrote (get_variable, Conv2D, MatMul+BiasAdd,
FusedBatchNormV3 with AssignMovingAvg updates in UPDATE_OPS).  Every helper
takes initializers, so the numeric fixtures pass constant initializers (numpy
arrays that land in Const nodes) and the timing graphs random ones."""

import math

import tensorflow as tf

ZEROS = tf.compat.v1.zeros_initializer()
ONES = tf.compat.v1.ones_initializer()


def variable(name, shape, initializer, dtype=tf.float32, trainable=True):
    return tf.compat.v1.get_variable(name, shape, dtype=dtype, initializer=initializer,
                                     trainable=trainable)


def conv2d(x, name, kernel_shape, kernel_init, stride=1, padding="SAME", bias_init=None,
           data_format="NHWC"):
    with tf.compat.v1.variable_scope(name):
        kernel = variable("kernel", kernel_shape, kernel_init, dtype=x.dtype)
        y = tf.nn.conv2d(x, kernel, strides=stride, padding=padding, data_format=data_format)
        if bias_init is not None:
            bias = variable("bias", kernel_shape[-1:], bias_init, dtype=x.dtype)
            y = tf.nn.bias_add(y, bias, data_format=data_format)
        return y


def dense(x, name, units, kernel_init, bias_init=ZEROS):
    with tf.compat.v1.variable_scope(name):
        kernel = variable("kernel", [int(x.shape[-1]), units], kernel_init, dtype=x.dtype)
        bias = variable("bias", [units], bias_init, dtype=x.dtype)
        return tf.nn.bias_add(tf.matmul(x, kernel), bias)


def batch_norm(x, name, momentum=0.9, epsilon=1e-3, data_format="NHWC"):
    """Training-mode fused batch norm, as tf.compat.v1.layers.batch_normalization
    (training=True, fused=True) writes it."""
    channels = int(x.shape[1 if data_format == "NCHW" else -1])
    with tf.compat.v1.variable_scope(name):
        gamma = variable("gamma", [channels], ONES, dtype=x.dtype)
        beta = variable("beta", [channels], ZEROS, dtype=x.dtype)
        moving_mean = variable("moving_mean", [channels], ZEROS, dtype=x.dtype, trainable=False)
        moving_var = variable("moving_variance", [channels], ONES, dtype=x.dtype,
                              trainable=False)
        if x.dtype == tf.float64:
            # FusedBatchNormV3 has no float64 kernel; the same math unfused
            # (only make_fixtures.py --noise builds float64 graphs).
            mean, var = tf.nn.moments(x, axes=[0, 1, 2])
            y = tf.nn.batch_normalization(x, mean, var, beta, gamma, epsilon)
            count = int(x.shape[0] * x.shape[1] * x.shape[2])
            var = var * (count / (count - 1.0))
        else:
            y, mean, var = tf.compat.v1.nn.fused_batch_norm(x, gamma, beta, epsilon=epsilon,
                                                            data_format=data_format,
                                                            is_training=True)
        for moving, batch in ((moving_mean, mean), (moving_var, var)):
            with tf.compat.v1.name_scope("AssignMovingAvg"):
                delta = (moving - batch) * (1.0 - momentum)
                update = tf.compat.v1.assign_sub(moving, delta)
            tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, update)
        return y


def layer_norm(x, name, epsilon=1e-6):
    channels = int(x.shape[-1])
    with tf.compat.v1.variable_scope(name):
        gamma = variable("gamma", [channels], ONES, dtype=x.dtype)
        beta = variable("beta", [channels], ZEROS, dtype=x.dtype)
        mean, var = tf.nn.moments(x, axes=[-1], keepdims=True)
        return (x - mean) * tf.math.rsqrt(var + epsilon) * gamma + beta


def encoder_layer(h, name, batch, seq, heads, ffn_units, inits, mask_bias=None,
                  approximate_gelu=False):
    """One transformer encoder layer over h [batch*seq, d]: multi-head self
    attention with BatchMatMulV2, residual, layer norm, GELU feed-forward,
    residual, layer norm.  `inits(name, shape)` gives each kernel's
    initializer; biases start at zero.  GELU is tf.nn.gelu: exact (Erf) or
    the tanh approximation."""
    d = int(h.shape[-1])
    depth = d // heads
    with tf.compat.v1.variable_scope(name):
        def split(t):
            t = tf.reshape(t, [batch, seq, heads, depth])
            return tf.transpose(t, [0, 2, 1, 3])

        q = split(dense(h, "query", d, inits("query", [d, d])))
        k = split(dense(h, "key", d, inits("key", [d, d])))
        v = split(dense(h, "value", d, inits("value", [d, d])))
        scores = tf.matmul(q, k, transpose_b=True) * (1.0 / math.sqrt(depth))
        if mask_bias is not None:
            scores += mask_bias
        probs = tf.nn.softmax(scores)
        ctx = tf.transpose(tf.matmul(probs, v), [0, 2, 1, 3])
        ctx = tf.reshape(ctx, [batch * seq, d])
        attn = dense(ctx, "attention_output", d, inits("attention_output", [d, d]))
        h = layer_norm(h + attn, "attention_norm")
        ffn = dense(h, "intermediate", ffn_units, inits("intermediate", [d, ffn_units]))
        ffn = tf.nn.gelu(ffn, approximate=approximate_gelu)
        ffn = dense(ffn, "output", d, inits("output", [ffn_units, d]))
        return layer_norm(h + ffn, "output_norm")
