"""Steps per second with and without the pipelint probe, on a fast and a slow pipeline.

Runs alternate (off, on, on, off, off, on, ...) in one process so that warm-up and machine noise hit both
sides alike; the table reports medians and the overhead ratio (1 - on/off).
Usage: python benchmarks/probe_overhead.py [--rounds 5] [--steps 2000]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from pipelint.profiler.install import install, uninstall  # noqa: E402
from pipelint.profiler.session import Session  # noqa: E402


def fast(steps):
    x = np.random.rand(steps * 32, 16).astype("float32")
    return tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * 2.0, num_parallel_calls=tf.data.AUTOTUNE) \
        .batch(32).prefetch(tf.data.AUTOTUNE)


def _slow_py(v):
    time.sleep(0.0002)
    return v


def slow(steps):
    return tf.data.Dataset.range(steps * 4).map(
        lambda i: tf.numpy_function(_slow_py, [i], tf.int64)).batch(4).prefetch(tf.data.AUTOTUNE)


def keras_fit(steps):
    return fast(steps)


def run_loop(make, steps, probed):
    session = install(Session(sample_every=50, live_warnings=False)) if probed else None
    try:
        ds = make(steps)
        t0 = time.perf_counter()
        n = 0
        for _ in ds:
            n += 1
        return n / (time.perf_counter() - t0)
    finally:
        if session is not None:
            uninstall(session)


def run_fit(make, steps, probed, model):
    session = install(Session(sample_every=50, live_warnings=False)) if probed else None
    try:
        ds = make(steps).map(lambda v: (v, v[:, :1]))
        t0 = time.perf_counter()
        model.fit(ds, epochs=1, verbose=0)
        return steps / (time.perf_counter() - t0)
    finally:
        if session is not None:
            uninstall(session)


def per_step_cost() -> tuple[float, float]:
    """Load-insensitive figures: µs per timed next() and ms per model read."""
    session = install(Session(sample_every=10**9, live_warnings=False))
    try:
        it = iter(fast(2000).repeat())
        rec = session.iter_records[-1]
        n = 20000
        t0 = time.perf_counter()
        for _ in range(n):
            rec.tick(0.0, 0.0)
        tick_us = (time.perf_counter() - t0) / n * 1e6
        next(it)
        t0 = time.perf_counter()
        for _ in range(50):
            session.sample(rec)
        sample_ms = (time.perf_counter() - t0) / 50 * 1e3
        return tick_us, sample_ms
    finally:
        uninstall(session)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--micro", action="store_true", help="only the per-step cost figures")
    a = ap.parse_args()
    import keras
    model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(8), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    if a.micro:
        tick_us, sample_ms = per_step_cost()
        print(f"probe bookkeeping per step: {tick_us:.1f} µs; one model read: {sample_ms:.2f} ms")
        return
    cases = [("fast pipeline, custom loop", lambda p: run_loop(fast, a.steps, p)),
             ("slow pipeline (py_function), custom loop", lambda p: run_loop(slow, a.steps // 4, p)),
             ("fast pipeline, Keras fit", lambda p: run_fit(keras_fit, a.steps // 2, p, model))]
    print(f"{'case':44} {'off steps/s':>12} {'on steps/s':>12} {'overhead':>9}")
    for name, fn in cases:
        fn(False), fn(True)  # warm-up: tracing, thread pools
        off, on = [], []
        for r in range(a.rounds):  # swap the order every round: no side always runs second
            if r % 2:
                on.append(fn(True))
                off.append(fn(False))
            else:
                off.append(fn(False))
                on.append(fn(True))
        mo, mn = statistics.median(off), statistics.median(on)
        print(f"{name:44} {mo:12.0f} {mn:12.0f} {100 * (1 - mn / mo):8.1f}%")
    tick_us, sample_ms = per_step_cost()
    print(f"\nprobe bookkeeping per step: {tick_us:.1f} µs; one get_model_proto read + alignment:"
          f" {sample_ms:.2f} ms (every 50 steps = {sample_ms * 1000 / 50:.1f} µs per step)")


if __name__ == "__main__":
    main()
