#!/usr/bin/env python3
"""Writes a Keras (tf_keras, Keras 2 HDF5) model of about 64 MB for the Keras read benchmark.

Eight 3x3 Conv2D(512) + BatchNormalization + ReLU blocks on a 32x32x3 input (about 16.5 M float32
parameters), seeded, saved with model.save(path) in the legacy .h5 format.

    python3 make_keras_64mb.py /tmp/keras64.h5
"""
import os
import sys

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
os.environ.setdefault('TF_USE_LEGACY_KERAS', '1')
import numpy as np  # noqa: E402
import tf_keras as keras  # noqa: E402


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else '/tmp/keras64.h5'
    keras.utils.set_random_seed(1)
    inputs = keras.Input(shape=(32, 32, 3))
    x = inputs
    for i in range(8):
        x = keras.layers.Conv2D(512, 3, padding='same', use_bias=False, name='conv%d' % i)(x)
        x = keras.layers.BatchNormalization(name='bn%d' % i)(x)
        x = keras.layers.ReLU(name='relu%d' % i)(x)
    model = keras.Model(inputs, x)
    rng = np.random.default_rng(1)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            gamma, beta, mean, var = layer.get_weights()
            layer.set_weights([rng.uniform(0.5, 1.5, gamma.shape).astype('f4'), rng.normal(0, 0.1, beta.shape).astype('f4'),
                               rng.normal(0, 0.1, mean.shape).astype('f4'), rng.uniform(0.5, 2, var.shape).astype('f4')])
    model.save(path)
    print('wrote %s (%.1f MB, %d parameters)' % (path, os.path.getsize(path) / 1e6, model.count_params()))


if __name__ == '__main__':
    main()
