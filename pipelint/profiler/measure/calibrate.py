"""What one `tf.py_function` call costs on this machine besides the user's own function.

The probe times the function a `py_function` wraps; TensorFlow's own Python around it (argument
and result conversion, the eager context) holds the GIL too, so it bounds how fast many waiting
calls can go however many threads run them. Measured once per process, at report time, with a
serial map over a no-op `py_function` (a few hundred calls, tens of milliseconds).
"""
from __future__ import annotations

import functools
import time

CALLS = 400


@functools.lru_cache(maxsize=1)
def py_function_overhead_ms() -> float | None:
    """CPU milliseconds per `tf.py_function` call of a function that does nothing, or None."""
    try:
        import tensorflow as tf

        def noop(i):
            return i

        ds = tf.data.Dataset.range(CALLS).map(lambda i: tf.py_function(noop, [i], tf.int64)).batch(50)
        for _ in ds.take(1):  # builds the function and the pool: not part of a call's cost
            pass
        p0 = time.process_time()
        for _ in ds:
            pass
        # Process CPU: the calls run on tf.data's threads, not this one (whose own share is
        # the loop's, small and counted too: an upper estimate).
        cpu = time.process_time() - p0
        return max(0.0, 1000 * cpu / CALLS)
    except Exception:  # noqa: BLE001 - no TensorFlow, or it fails: no calibration, no GIL figure
        return None
