"""What PL101's advice is worth on a trivial map: a projection (`lambda x, y: x`) or a cast.

PL101 asks for `num_parallel_calls` on a `map` that has none. For a function that only picks a
component of the element or casts it, is that worth a finding? This runs, alternately, the same
pipeline over in-memory images (N elements of HxWx3 uint8 plus a label) with the trivial map written
serially and with `num_parallel_calls=AUTOTUNE`, under tf.data's default options (which parallelize
a stateless map themselves: `map_parallelization`) and with that rewrite turned off, and prints the
median epoch time of each and the ratio serial / parallel. A ratio near 1 means the finding would
not pay. The pipeline without the map is timed too, to show what the map itself costs.

    python benchmarks/trivial_map_cost.py            # 7 alternating rounds
    python benchmarks/trivial_map_cost.py --rounds 11 --elements 4000

Run it on a quiet machine and quote the load average (printed) beside the figures.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--elements", type=int, default=3000)
    parser.add_argument("--size", type=int, default=64, help="image side in pixels")
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args()

    import numpy as np
    import tensorflow as tf

    images = np.random.default_rng(0).integers(0, 255, (args.elements, args.size, args.size, 3), dtype=np.uint8)
    labels = np.arange(args.elements, dtype=np.int64)
    functions = {
        "projection": lambda x, y: x,
        "cast": lambda x, y: (tf.cast(x, tf.float32) / 255.0, y),
    }

    def pipeline(function, parallel: bool | None, rewrite: bool) -> tf.data.Dataset:
        ds = tf.data.Dataset.from_tensor_slices((images, labels))
        if function is not None:
            ds = ds.map(function, num_parallel_calls=tf.data.AUTOTUNE) if parallel else ds.map(function)
        ds = ds.batch(args.batch)
        options = tf.data.Options()
        options.experimental_optimization.map_parallelization = rewrite
        return ds.with_options(options)

    variants = {"no map": pipeline(None, None, True)}
    for name, function in functions.items():
        for rewrite in (True, False):
            tag = "default options" if rewrite else "map_parallelization off"
            variants[f"{name}, serial, {tag}"] = pipeline(function, False, rewrite)
            variants[f"{name}, AUTOTUNE, {tag}"] = pipeline(function, True, rewrite)

    def epoch(ds: tf.data.Dataset) -> float:
        start = time.perf_counter()
        for _ in ds:
            pass
        return time.perf_counter() - start

    for ds in variants.values():  # warm-up: tracing and the first allocation
        epoch(ds)
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.rounds):
        for name, ds in variants.items():
            times[name].append(epoch(ds))

    print(f"load average before/after: {os.getloadavg()[0]:.2f}; {args.elements} elements of "
          f"{args.size}x{args.size}x3, batch {args.batch}, {args.rounds} alternating rounds, TF {tf.__version__}")
    print(f"{'variant':48} {'median ms':>10} {'spread ms':>10}")
    for name, values in times.items():
        print(f"{name:48} {statistics.median(values) * 1e3:10.1f} {(max(values) - min(values)) * 1e3:10.1f}")
    print()
    for name in functions:
        for tag in ("default options", "map_parallelization off"):
            serial = statistics.median(times[f"{name}, serial, {tag}"])
            parallel = statistics.median(times[f"{name}, AUTOTUNE, {tag}"])
            print(f"{name:10} {tag:24} serial / AUTOTUNE = {serial / parallel:.2f}")


if __name__ == "__main__":
    main()
