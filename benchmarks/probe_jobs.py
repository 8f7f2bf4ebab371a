"""Training jobs of known costs, the ground truth of `probe_accuracy.py` and of `pipelint profile --verify`.

Usage: python benchmarks/probe_jobs.py JOB [STEPS [fixed]]     (or under `pipelint profile`)

Every cost is built in and known: a *waiting* stage sleeps (releases the GIL, uses no CPU), a
*computing* stage spins on the clock for its time (holds the GIL, one core busy), the model's step
sleeps inside the train function (a `numpy_function` layer) for MODEL_MS. The job also prints its
own step time, measured from outside the probe (median of the steady steps), as
`job-step-ms <value>`, and the slow stage's own call time (median, timed inside the job's
function, mean) as `job-call-ms <value>`, so that the truth does not depend on the probe's figures: on
a loaded machine a 3 ms sleep takes longer than 3 ms, and the job sees that too.

| job | pipeline | designed costs |
|---|---|---|
| wait_map | range -> map(numpy_function: sleep) -> batch -> prefetch, fit | STAGE_MS per element |
| busy_map | range -> map(numpy_function: spin) -> batch -> prefetch, fit | STAGE_MS per element |
| pydataset | PyDataset(workers=1), `__getitem__` sleeps, fit | PYDATASET_MS per batch |
| generator | from_generator (sleeps per element) -> batch -> prefetch, fit | GEN_MS per element |
| model_bound | from_tensor_slices -> batch -> prefetch, fit | model only |
| loop_wait_map | as wait_map, custom loop (the step sleeps MODEL_MS in Python) | STAGE_MS per element |

Shapes of issue 17, each with its fix written by hand (`JOB fixed`, threads from $PIPELINT_JOB_THREADS):

| job | pipeline | designed costs | fix by hand |
|---|---|---|---|
| loop_fused_wait | custom loop over range -> map(py_function: sleep) -> batch(32), fused to MapAndBatch | FUSED_WAIT_MS per element, LOOP_STEP_MS per step | num_parallel_calls=N + private pool N |
| fit_wait_at_cores | fit over map(py_function: sleep, num_parallel_calls=cores) -> batch(16) -> prefetch | CORES_WAIT_MS per element | num_parallel_calls=N + private pool N |
| tfops_busy | fit over map(matmuls, AUTOTUNE) -> batch -> prefetch: TF ops on every core | TF ops only | none local (num_parallel_calls=cores by hand) |
| epochs_cache | fit, EPOCHS epochs over 4.7 MB in memory -> map(deterministic matmuls, AUTOTUNE) -> batch -> prefetch | TF ops per element | .cache() after the map |
| image_aug | fit over image_dataset_from_directory -> map(Keras random flip/rotation, no num_parallel_calls) | TF ops per batch | num_parallel_calls=AUTOTUNE |

Issue 30, the saturated-augmentation shape (`saturated_promise.py` runs it beside its fix by hand):

| job | pipeline | designed costs | fix by hand |
|---|---|---|---|
| saturated_aug | fit over from_tensor_slices(images) -> map(random TF augmentation, AUTOTUNE) -> batch(16) -> prefetch; the model's step sleeps AUG_MODEL_MS (a device stand-in: no host CPU) | AUG_ROTATIONS random rotations of a AUG_SIZE^2 image per element, on every core | `service`: a tf.data service dispatcher and worker started on this host, distribute(DYNAMIC) after batch, as the probe's snippet says |
"""
from __future__ import annotations

import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

BATCH = 8
FEATURES = 16
MODEL_MS = 10.0
STAGE_MS = 3.0       # wait_map, busy_map, loop_wait_map: per element (24 ms per batch of 8)
PYDATASET_MS = 25.0  # per batch
GEN_MS = 2.0         # per element (16 ms per batch of 8)
MODEL_BOUND_MS = 20.0
FUSED_WAIT_MS = 1.5  # loop_fused_wait: per element (an I/O-like read), 32 per batch
FUSED_BATCH = 32
LOOP_STEP_MS = 4.0   # loop_fused_wait: the loop's own step
CORES_WAIT_MS = 3.0  # fit_wait_at_cores: per element, 16 per batch
EPOCHS = 4           # epochs_cache
MATMULS = 60         # tfops_busy: matmuls per element
CACHE_MATMULS = 200  # epochs_cache: matmuls per element (tens of ms per step: the job dominates noise)

#: job -> (designed step ms, designed ms per element of the slow stage, designed ms per batch of it)
TRUTH = {
    "wait_map": (max(MODEL_MS, BATCH * STAGE_MS), STAGE_MS, BATCH * STAGE_MS),
    "busy_map": (max(MODEL_MS, BATCH * STAGE_MS), STAGE_MS, BATCH * STAGE_MS),
    "pydataset": (max(MODEL_MS, PYDATASET_MS), None, PYDATASET_MS),
    "generator": (max(MODEL_MS, BATCH * GEN_MS), GEN_MS, BATCH * GEN_MS),
    "model_bound": (MODEL_BOUND_MS, None, None),
    "loop_wait_map": (max(MODEL_MS, BATCH * STAGE_MS), STAGE_MS, BATCH * STAGE_MS),
}


CALLS: list[float] = []  # the slow stage's own call times (s), measured by the job itself


def sleep_ms(ms: float) -> None:
    time.sleep(ms / 1000)


def timed_cost(cost, ms: float) -> None:
    t0 = time.perf_counter()
    cost(ms)
    CALLS.append(time.perf_counter() - t0)


def report_calls() -> None:
    if CALLS:
        # A mean, as the probe's figure is (total time / calls): a loaded machine gives sleeps a long tail.
        print(f"job-call-ms {1000 * statistics.fmean(CALLS):.3f}", flush=True)


def spin_ms(ms: float) -> None:
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        pass


def _features(i) -> np.ndarray:
    return np.full(FEATURES, float(i) % 7, np.float32)


def slow_map(cost):
    import tensorflow as tf

    def load(i):
        timed_cost(cost, STAGE_MS)
        return _features(i)

    def parse(i):
        x = tf.numpy_function(load, [i], tf.float32)
        x.set_shape([FEATURES])
        return x, tf.cast(i % 2, tf.float32)
    return parse


def sleep_layer(step_ms: float):
    """A layer that stands for the device work of a step: step_ms of wall time, no host CPU."""
    import keras
    import tensorflow as tf

    class Sleep(keras.layers.Layer):
        def call(self, x):
            def nap(v):
                sleep_ms(step_ms)
                return v
            y = tf.numpy_function(nap, [x], tf.float32)
            y.set_shape(x.shape)
            return y

    return Sleep()


def model(step_ms: float):
    import keras

    m = keras.Sequential([keras.Input((FEATURES,)), sleep_layer(step_ms), keras.layers.Dense(1)])
    m.compile(optimizer="sgd", loss="mse", jit_compile=False)
    return m


class StepClock:
    """The job's own step timing (outside the probe): median of the steady steps."""

    def __init__(self):
        self.times: list[float] = []

    def tick(self) -> None:
        self.times.append(time.perf_counter())

    def report(self, skip: int = 5) -> None:
        d = [b - a for a, b in zip(self.times, self.times[1:])]
        if d[skip:]:
            print(f"job-step-ms {1000 * statistics.median(d[skip:]):.3f}", flush=True)
        if d:  # every step, every epoch: what a cache pays over the whole job
            print(f"job-mean-ms {1000 * statistics.fmean(d):.3f}", flush=True)


def fit(m, data, steps: int, **kw) -> None:
    timed_fit(m, data, epochs=1, steps_per_epoch=steps, **kw)


def timed_fit(m, data, **kw) -> None:
    """`m.fit(data, **kw)` with each step timed by the job's own clock (printed at the end)."""
    import keras
    clock = StepClock()

    class Clock(keras.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            clock.tick()
    try:
        m.fit(data, verbose=0, callbacks=[Clock()], **kw)
    finally:
        clock.report()


def timed_loop(ds, steps: int, step_ms: float) -> None:
    """A custom training loop over `ds`: `steps` steps of `step_ms` each, timed by the job's clock."""
    clock = StepClock()
    try:
        for i, _batch in enumerate(ds):
            clock.tick()
            if i == steps:
                break
            sleep_ms(step_ms)
    finally:
        clock.report()


def _threads() -> int:
    return int(os.environ.get("PIPELINT_JOB_THREADS", "16"))


def _with_pool(ds, threads: int):
    import tensorflow as tf
    options = tf.data.Options()
    options.threading.private_threadpool_size = threads
    return ds.with_options(options)


def _read(cost_ms: float):
    import tensorflow as tf

    def read(i):
        timed_cost(sleep_ms, cost_ms)
        return _features(i)

    def load(i):
        x = tf.py_function(read, [i], tf.float32)
        x.set_shape([FEATURES])
        return x, tf.cast(i % 2, tf.float32)
    return load


def _matmuls(v, rounds: int):
    import tensorflow as tf
    m = tf.reshape(v, [32, 32])
    for _ in range(rounds):
        m = tf.tanh(tf.linalg.matmul(m, m) / 32.0)
    return tf.reshape(m, [1024]), tf.reduce_mean(v)


# Module-level functions, so that the linter's model can tell the probe they draw no randomness.
def features(v):
    """Deterministic TF ops: MATMULS 32x32 matmuls per element."""
    return _matmuls(v, MATMULS)


def costly_features(v):
    """Deterministic TF ops: CACHE_MATMULS 32x32 matmuls per element."""
    return _matmuls(v, CACHE_MATMULS)


def _images(root: str, count: int = 96) -> str:
    """A folder of small PNGs in two classes (written with TensorFlow: no imaging library needed)."""
    import tensorflow as tf
    rng = np.random.default_rng(0)
    for label in ("a", "b"):
        os.makedirs(os.path.join(root, label), exist_ok=True)
        for i in range(count):
            pixels = rng.integers(0, 255, (96, 96, 3), dtype=np.uint8)
            tf.io.write_file(os.path.join(root, label, f"{i}.png"), tf.io.encode_png(pixels))
    return root


def shapes(job: str, steps: int, fixed: bool) -> None:
    """The jobs of issue 17 (see the module docstring)."""
    import keras
    import tensorflow as tf
    cores = len(os.sched_getaffinity(0))
    if job == "saturated_aug":
        saturated_aug(steps, fixed)
    elif job == "loop_fused_wait":
        npc = _threads() if fixed else None
        ds = tf.data.Dataset.range(10**6).map(_read(FUSED_WAIT_MS), num_parallel_calls=npc).batch(FUSED_BATCH)
        if fixed:
            ds = _with_pool(ds, _threads())
        timed_loop(ds, steps, LOOP_STEP_MS)
    elif job == "fit_wait_at_cores":
        npc = _threads() if fixed else cores
        ds = tf.data.Dataset.range(10**6).map(_read(CORES_WAIT_MS), num_parallel_calls=npc).batch(16)
        ds = ds.prefetch(tf.data.AUTOTUNE)
        if fixed:
            ds = _with_pool(ds, _threads())
        fit(model(MODEL_MS), ds, steps)
    elif job == "tfops_busy":
        x = np.random.default_rng(0).random((4096, 1024), dtype=np.float32)
        npc = cores if fixed else tf.data.AUTOTUNE
        ds = tf.data.Dataset.from_tensor_slices(x).repeat().map(features, num_parallel_calls=npc)
        fit(model(1.0), ds.map(lambda v, y: (v[:FEATURES], y)).batch(32).prefetch(tf.data.AUTOTUNE), steps)
    elif job == "epochs_cache":
        x = np.random.default_rng(0).random((1152, 1024), dtype=np.float32)  # 4.7 MB in memory
        ds = tf.data.Dataset.from_tensor_slices(x).map(costly_features, num_parallel_calls=tf.data.AUTOTUNE)
        if fixed:
            ds = ds.cache()
        ds = ds.batch(32).prefetch(tf.data.AUTOTUNE)
        m = keras.Sequential([keras.Input((1024,)), keras.layers.Dense(1)])
        m.compile(optimizer="sgd", loss="mse")
        timed_fit(m, ds, epochs=EPOCHS)
    elif job == "image_aug":
        import tempfile
        root = _images(tempfile.mkdtemp(prefix="pipelint-images-"))
        ds = keras.utils.image_dataset_from_directory(root, image_size=(96, 96), batch_size=16, seed=1)
        aug = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.RandomRotation(0.1)])
        kw = {"num_parallel_calls": tf.data.AUTOTUNE} if fixed else {}
        ds = ds.map(lambda x, y: (aug(x, training=True), y), **kw)
        m = keras.Sequential([keras.Input((96, 96, 3)), keras.layers.Conv2D(8, 3, strides=2),
                              keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(2)])
        m.compile(optimizer="sgd", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        timed_fit(m, ds, epochs=max(1, steps // 12))
    else:
        raise SystemExit(f"unknown job {job!r}; one of: {', '.join(TRUTH)}, {', '.join(SHAPES)}")


SHAPES = ("loop_fused_wait", "fit_wait_at_cores", "tfops_busy", "epochs_cache", "image_aug", "saturated_aug")

AUG_SIZE = 96        # saturated_aug: pixels per side
AUG_ROTATIONS = 6    # saturated_aug: random rotations per element (milliseconds of TF ops: the cost dominates noise)
AUG_BATCH = 16
AUG_MODEL_MS = 5.0   # saturated_aug: the model's step, a sleep (the accelerator's time; the host's cores stay free)


def augment(image):
    """Random TF augmentation (random flip, brightness, AUG_ROTATIONS random rotations): TF ops only,
    so it runs on every core with AUTOTUNE, and random, so no cache can keep it."""
    import tensorflow as tf
    x = tf.image.random_flip_left_right(tf.cast(image, tf.float32) / 255.0)
    x = tf.image.random_brightness(x, 0.2)
    size = float(AUG_SIZE)
    for _ in range(AUG_ROTATIONS):
        a = tf.random.uniform([], -0.3, 0.3)
        c, s = tf.cos(a), tf.sin(a)
        # Rotation about the centre as a projective transform (what keras' RandomRotation runs).
        ox = (size - 1) / 2 - c * (size - 1) / 2 + s * (size - 1) / 2
        oy = (size - 1) / 2 - s * (size - 1) / 2 - c * (size - 1) / 2
        t = tf.reshape(tf.stack([c, -s, ox, s, c, oy, 0.0, 0.0]), [1, 8])
        x = tf.raw_ops.ImageProjectiveTransformV3(
            images=x[None], transforms=t, output_shape=[AUG_SIZE, AUG_SIZE], fill_value=0.0,
            interpolation="BILINEAR", fill_mode="REFLECT")[0]
    return x


def saturated_aug(steps: int, fixed: bool) -> None:
    """Issue 30's saturated shape; `fixed`: the probe's data-service advice applied by hand on this host."""
    import keras
    import tensorflow as tf
    n = (steps + 10) * AUG_BATCH  # finite: DYNAMIC sharding splits the source, each element once
    x = np.random.default_rng(0).integers(0, 255, (n, AUG_SIZE, AUG_SIZE, 3), dtype=np.uint8)
    y = np.zeros((n, 1), np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.map(lambda im, lab: (augment(im), lab), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.batch(AUG_BATCH)
    if fixed:
        # As the probe's snippet says: distribute after the last stage that does work, before the
        # trainer's prefetch. Dispatcher and worker on this host (its cores are all there is here).
        svc = tf.data.experimental.service
        dispatcher = svc.DispatchServer()
        worker = svc.WorkerServer(svc.WorkerConfig(dispatcher_address=dispatcher.target.split("://")[1]))
        ds = ds.apply(svc.distribute(processing_mode=svc.ShardingPolicy.DYNAMIC, service=dispatcher.target,
                                     job_name="train"))
        saturated_aug.servers = (dispatcher, worker)  # alive for the whole fit
    ds = ds.prefetch(tf.data.AUTOTUNE)

    m = keras.Sequential([keras.Input((AUG_SIZE, AUG_SIZE, 3)), sleep_layer(AUG_MODEL_MS),
                          keras.layers.GlobalAveragePooling2D(),
                          keras.layers.Dense(1)])
    m.compile(optimizer="sgd", loss="mse", jit_compile=False)
    fit(m, ds, steps)


def main(job: str, steps: int, fixed: bool = False) -> None:
    import tensorflow as tf
    if job in SHAPES:
        shapes(job, steps, fixed)
        return
    n = steps + 20  # a little more data than steps: the epoch never runs dry
    if job in ("wait_map", "busy_map"):
        cost = sleep_ms if job == "wait_map" else spin_ms
        ds = tf.data.Dataset.range(n * BATCH).map(slow_map(cost)).batch(BATCH).prefetch(tf.data.AUTOTUNE)
        fit(model(MODEL_MS), ds, steps)
    elif job == "loop_wait_map":
        ds = tf.data.Dataset.range(n * BATCH).map(slow_map(sleep_ms)).batch(BATCH).prefetch(tf.data.AUTOTUNE)
        timed_loop(ds, steps, MODEL_MS)
    elif job == "pydataset":
        import keras

        class Batches(keras.utils.PyDataset):
            def __init__(self, count, **kwargs):
                super().__init__(**kwargs)
                self.count = count

            def __len__(self):
                return self.count

            def __getitem__(self, idx):
                timed_cost(sleep_ms, PYDATASET_MS)
                x = np.full((BATCH, FEATURES), float(idx % 7), np.float32)
                return x, np.zeros((BATCH, 1), np.float32)
        fit(model(MODEL_MS), Batches(n), steps)
    elif job == "generator":
        def examples():
            for i in range(n * BATCH):
                timed_cost(sleep_ms, GEN_MS)
                yield _features(i), np.float32(i % 2)
        ds = tf.data.Dataset.from_generator(
            examples, output_signature=(tf.TensorSpec((FEATURES,), tf.float32), tf.TensorSpec((), tf.float32)),
        ).batch(BATCH).prefetch(tf.data.AUTOTUNE)
        fit(model(MODEL_MS), ds, steps)
    elif job == "model_bound":
        x = np.random.default_rng(0).random((n * 32, FEATURES), dtype=np.float32)
        ds = tf.data.Dataset.from_tensor_slices((x, x[:, :1])).batch(32).prefetch(tf.data.AUTOTUNE)
        fit(model(MODEL_BOUND_MS), ds, steps)
    else:
        raise SystemExit(f"unknown job {job!r}; one of: {', '.join(TRUTH)}, {', '.join(SHAPES)}")


if __name__ == "__main__":
    try:
        main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100,
             fixed=len(sys.argv) > 3 and sys.argv[3] in ("fixed", "service"))
    finally:
        report_calls()
