"""Shared bits of the example scripts: size from argv/env, a tiny Keras model."""
import os
import sys


def steps(default: int = 200) -> int:
    """Number of training steps: first CLI argument, else $PIPELINT_EXAMPLE_STEPS, else `default`."""
    if len(sys.argv) > 1:
        return int(sys.argv[1])
    return int(os.environ.get("PIPELINT_EXAMPLE_STEPS", default))


def small_model(features: int, width: int = 16, depth: int = 1):
    import keras
    layers = [keras.Input((features,))]
    layers += [keras.layers.Dense(width, activation="relu") for _ in range(depth)]
    layers.append(keras.layers.Dense(1))
    model = keras.Sequential(layers)
    model.compile(optimizer="sgd", loss="mse")
    return model


def busy(ms: float, offer_gil_every_ms: float = 0.2) -> None:
    """Compute (hold the GIL, use a core) for `ms` milliseconds of this thread's CPU time: stands
    for decoding in Python. CPU time, not wall time: a loop run to a wall-clock deadline does less
    work whenever it waits for the GIL or a core, so it partly waits, and more threads would help it.
    It offers the GIL every `offer_gil_every_ms` of CPU, as a decoder's C calls do: otherwise the training
    thread waits up to Python's 5 ms switch interval for it at every step, and the job's step times
    depend on how the threads happen to be scheduled."""
    import time
    end = time.thread_time() + ms / 1000
    while (now := time.thread_time()) < end:
        slice_end = min(end, now + offer_gil_every_ms / 1000)
        while time.thread_time() < slice_end:
            pass
        time.sleep(0)
