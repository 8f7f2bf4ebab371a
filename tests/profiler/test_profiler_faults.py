"""The probe under faults: `pipelint profile --report R.json SCRIPT` in a subprocess, per case.

All cases start together (one module fixture) so that their TensorFlow imports overlap; each test
then waits for its own process with a timeout, so a hang fails the test instead of the run.
"""
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 150

HEAD = """
import os, sys
import numpy as np
import tensorflow as tf
import keras

def pipeline(n=64):
    x = np.random.rand(n, 4).astype("float32")
    return tf.data.Dataset.from_tensor_slices((x, x[:, :1])).map(lambda a, b: (a * 2.0, b)).batch(8)

def model():
    m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    m.compile("sgd", "mse")
    return m
"""

CASES = {
    "exit3": """
        for _ in pipeline():
            pass
        sys.exit(3)
    """,
    "raise": """
        def load_shard():
            raise ValueError("corrupt shard 7")
        model().fit(pipeline(), epochs=1, verbose=0)
        load_shard()
    """,
    "interrupt_loop": """
        for i, _ in enumerate(pipeline(10**4).repeat()):
            if i == 20:
                raise KeyboardInterrupt
    """,
    "interrupt_fit": """
        class Stop(keras.callbacks.Callback):
            def on_train_batch_end(self, batch, logs=None):
                if batch == 30:
                    raise KeyboardInterrupt
        model().fit(pipeline(8 * 200), epochs=1, verbose=0, callbacks=[Stop()])
    """,
    "workers": """
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        def square(v):
            return v * v

        if __name__ == "__main__":
            with multiprocessing.get_context("spawn").Pool(2) as pool:
                before = pool.map(square, range(8))
            model().fit(pipeline(), epochs=2, verbose=0)
            with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as ex:
                after = list(ex.map(square, range(8)))
            pool = multiprocessing.get_context("spawn").Pool(2)  # left open: must not hang the exit
            pool.map(square, range(4))
            print("workers ok", sum(before), sum(after))
    """,
    "mirrored": """
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            m = model()
            opt = keras.optimizers.SGD(0.01)
            m.build((None, 4))
        dist = strategy.experimental_distribute_dataset(pipeline(256))

        @tf.function
        def step(x, y):
            def replica(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((m(x, training=True) - y) ** 2)
                grads = tape.gradient(loss, m.trainable_variables)
                opt.apply_gradients(zip(grads, m.trainable_variables))
                return loss
            return strategy.reduce("SUM", strategy.run(replica, args=(x, y)), axis=None)

        n = 0
        for x, y in dist:
            step(x, y)
            n += 1
        with strategy.scope():
            m2 = model()
        m2.fit(pipeline(256), epochs=2, verbose=0)
        print("mirrored ok", n, strategy.num_replicas_in_sync)
    """,
    "xprof": """
        model().fit(pipeline(), epochs=1, verbose=0)
    """,
}
EXTRA_ARGS = {"xprof": ["--xprof", "trace"]}  # relative: the processes run in their own tmp dir


def _script(name):
    body = textwrap.dedent(CASES[name])
    if name == "workers":  # spawn re-runs the script in each worker: keep TF imports out of them
        guard = 'if __name__ == "__main__":\n'
        return body.replace(guard, guard + textwrap.indent(HEAD, "    "), 1)
    return HEAD + body


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    procs = {}
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONUNBUFFERED": "1"}
    for name in CASES:
        d = tmp_path_factory.mktemp(name)
        (d / "train.py").write_text(_script(name))
        cmd = [sys.executable, "-m", "pipelint.profiler", "--report", str(d / "r.json"),
               *EXTRA_ARGS.get(name, []), str(d / "train.py")]
        procs[name] = (subprocess.Popen(cmd, cwd=d, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, start_new_session=True), d)
    yield lambda name: _finish(*procs[name])
    for p, _ in procs.values():
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)


def _finish(proc, d):
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"pipelint profile hung; stderr tail:\n{err[-3000:]}")
    rj = d / "r.json"
    assert rj.exists(), f"no report written (rc {proc.returncode}); stderr tail:\n{err[-3000:]}"
    return proc.returncode, out, err, json.loads(rj.read_text()), d


def test_sys_exit_code_is_kept_and_report_written(runs):
    rc, _, err, r, _ = runs("exit3")
    assert rc == 3, err[-2000:]
    assert r["exit_code"] == 3 and r["steps"] > 0


def test_script_exception_exits_1_with_its_traceback(runs):
    rc, _, err, r, _ = runs("raise")
    assert rc == 1
    assert "Traceback (most recent call last)" in err and "ValueError: corrupt shard 7" in err
    assert 'train.py", line' in err and "in load_shard" in err and "runner.py" not in err
    assert r["exit_code"] == 1 and r["step_source"] == "keras"


def test_keyboard_interrupt_in_custom_loop_exits_130_with_partial_report(runs):
    rc, _, err, r, _ = runs("interrupt_loop")
    assert rc == 130, err[-2000:]
    assert "KeyboardInterrupt" in err
    assert r["exit_code"] == 130 and r["step_source"] == "loop" and 10 <= r["steps"] <= 20
    assert r["stages"]


def test_keyboard_interrupt_in_fit_exits_130_with_partial_report(runs):
    rc, _, err, r, _ = runs("interrupt_fit")
    assert rc == 130, err[-2000:]
    assert r["exit_code"] == 130
    # The steps before Ctrl-C count although fit never reached on_train_end.
    assert r["step_source"] == "keras" and r["steps"] >= 10, r
    assert r["stages"]


def test_worker_processes_do_not_hang_or_break_the_probe(runs):
    rc, out, err, r, _ = runs("workers")
    assert rc == 0, err[-3000:]
    assert "workers ok 140 140" in out
    assert r["exit_code"] == 0 and r["step_source"] == "keras" and r["steps"] > 0
    assert not r["probe_errors"]


def test_mirrored_strategy_custom_loop_and_fit(runs):
    rc, out, err, r, _ = runs("mirrored")
    assert rc == 0, err[-3000:]
    assert "mirrored ok 32 1" in out
    # The fit under strategy.scope() is measured; the strategy.run loop is not (documented limit).
    assert r["exit_code"] == 0 and r["step_source"] == "keras" and r["steps"] > 0
    assert not r["probe_errors"], r["probe_errors"]


def test_xprof_trace_is_captured_and_reported(runs):
    rc, _, err, r, d = runs("xprof")
    assert rc == 0, err[-3000:]
    xp = r["xprof"]
    if xp["error"] and "could not start" in xp["error"]:
        pytest.skip(f"the TF profiler does not start here: {xp['error']}")
    traces = list((d / "trace").rglob("*.xplane.pb"))
    assert traces, (xp, err[-2000:])
    assert xp["dir"] == str(d / "trace") and xp["trace"] == str(traces[0])
    assert "tensorboard --logdir" in xp["open"] and "XProf trace:" in err
    assert r["steps"] > 0 and not r["probe_errors"]
