"""tf.data service on this machine: a CPU-heavy input pipeline feeding a small Keras model, with 0
service workers (the trainer prepares its own input) against 1, 2... real service workers, side by
side in one run, and the probe's projection from the 0-worker run beside the measured figure.

Separate hosts are simulated: the trainer process is pinned to one core and each worker process to
a core of its own (`os.sched_setaffinity`), so a worker adds exactly one core of preprocessing,
as a worker host would add its cores. The dispatcher (little work) shares the trainer's core.
What this does not capture: the network (all traffic is localhost gRPC, no bandwidth limit, no
latency beyond loopback), other hosts' memory bandwidth and caches (cores here share them), and
the dispatcher's load with many workers. Configurations that need more cores than this process
may use are skipped and listed.

    python -m benchmarks.data_service_scaling                  # 0 and 1 worker (2 cores)
    python -m benchmarks.data_service_scaling --rounds 3        # alternating rounds, medians
    python -m benchmarks.data_service_scaling --workers 0,1,2,4 --steps 300

Every process it starts is stopped at the end, also on failure or Ctrl-C (`cluster`).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from typing import Iterator

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH = 32
FEATURES = 64


def cores() -> list[int]:
    return sorted(os.sched_getaffinity(0))


# -- the roles, each run in its own process -------------------------------------------------------

def _pin(core: int) -> None:
    os.sched_setaffinity(0, {core})  # before TensorFlow starts its thread pools


def serve_dispatcher(core: int) -> None:
    _pin(core)
    import tensorflow as tf
    server = tf.data.experimental.service.DispatchServer()
    print("READY", server.target, flush=True)
    server.join()


def serve_worker(core: int, dispatcher: str) -> None:
    _pin(core)
    import tensorflow as tf
    address = dispatcher.split("://", 1)[-1]
    server = tf.data.experimental.service.WorkerServer(
        tf.data.experimental.service.WorkerConfig(dispatcher_address=address))
    print("READY", flush=True)
    server.join()


def make_dataset(work: int, dispatcher: str | None):
    """Each element: `work` 64x64 matmuls (pure TF ops, so service workers can run it)."""
    import tensorflow as tf

    def features(i):
        x = tf.random.stateless_normal([FEATURES, FEATURES], seed=tf.stack([i, 0]))
        for _ in range(work):
            x = tf.tanh(tf.matmul(x, x) * 0.05)
        return tf.reduce_mean(x, axis=0), i % 10

    ds = tf.data.Dataset.range(1 << 30).map(features, num_parallel_calls=tf.data.AUTOTUNE).batch(BATCH)
    if dispatcher:
        ds = ds.apply(tf.data.experimental.service.distribute(
            processing_mode=tf.data.experimental.service.ShardingPolicy.OFF, service=dispatcher))
    return ds.prefetch(tf.data.AUTOTUNE)


def train(core: int, dispatcher: str | None, work: int, steps: int, warmup: int, width: int) -> dict:
    """Fit a small MLP on the pipeline; throughput over the steps after `warmup`, and the probe's report."""
    _pin(core)
    import keras
    from pipelint.profiler.run.install import install, uninstall
    from pipelint.profiler.output.report import build_report
    from pipelint.profiler.run.session import Session

    session = install(Session(live_warnings=False))  # as under `pipelint profile`: call sites recorded
    ds = make_dataset(work, dispatcher)
    model = keras.Sequential([keras.Input((FEATURES,)), keras.layers.Dense(width, activation="relu"),
                              keras.layers.Dense(width, activation="relu"), keras.layers.Dense(10)])
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))

    marks: dict[str, float] = {}

    class Clock(keras.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            if batch == warmup:
                marks["t0"] = time.perf_counter()

        def on_train_batch_end(self, batch, logs=None):
            marks["t1"] = time.perf_counter()

    model.fit(ds, epochs=1, steps_per_epoch=warmup + steps, verbose=0, callbacks=[Clock()])
    uninstall(session, force=True)
    report = build_report(session)
    return {"steps_per_s": steps / (marks["t1"] - marks["t0"]), "report": report}


# -- the orchestration ----------------------------------------------------------------------------

def _spawn(args: list[str]) -> subprocess.Popen:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-m", "benchmarks.data_service_scaling", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)


def _ready(proc: subprocess.Popen, timeout: float) -> str:
    """The READY line of a server process (its first line), or an error after `timeout` seconds."""
    import selectors
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    if not sel.select(timeout):
        raise TimeoutError(f"server process {proc.pid} not ready after {timeout:.0f} s")
    line = proc.stdout.readline().strip()
    if not line.startswith("READY"):
        raise RuntimeError(f"server process {proc.pid} failed to start (exit {proc.poll()})")
    return line


def stop(procs: list[subprocess.Popen]) -> None:
    """SIGTERM each process group we started, then SIGKILL what is left after 5 s."""
    for proc in procs:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 5
    for proc in procs:
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


@contextlib.contextmanager
def cluster(workers: int, trainer_core: int, worker_cores: list[int], timeout: float = 120,
            procs: list[subprocess.Popen] | None = None) -> Iterator[str | None]:
    """A localhost dispatcher and `workers` worker processes, each pinned; yields the dispatcher
    target (None for 0 workers). Every process is stopped on exit, whatever happened. `procs`,
    when given, receives the processes started (tests check they are gone)."""
    procs = procs if procs is not None else []
    try:
        if workers == 0:
            yield None
            return
        procs.append(_spawn(["dispatcher", "--core", str(trainer_core)]))
        target = _ready(procs[0], timeout).split()[1]
        for core in worker_cores[:workers]:
            procs.append(_spawn(["worker", "--core", str(core), "--dispatcher", target]))
        for proc in procs[1:]:
            _ready(proc, timeout)
        yield target
    finally:
        stop(procs)


def run_trainer(core: int, dispatcher: str | None, work: int, steps: int, warmup: int, width: int,
                timeout: float) -> dict:
    args = ["trainer", "--core", str(core), "--work", str(work), "--steps", str(steps),
            "--warmup", str(warmup), "--width", str(width)]
    if dispatcher:
        args += ["--dispatcher", dispatcher]
    proc = _spawn(args)
    try:
        out, _ = proc.communicate(timeout=timeout)
    finally:
        stop([proc])
    lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"trainer exited {proc.returncode} without a result")
    return json.loads(lines[-1][len("RESULT "):])


def compare(workers: tuple[int, ...] = (0, 1), work: int = 12, steps: int = 150, warmup: int = 20,
            width: int = 512, timeout: float = 300, rounds: int = 1) -> dict:
    """Throughput for each worker count, side by side in one run (the configurations alternate
    round by round; medians over the rounds), and the 0-worker probe's projection."""
    import statistics
    available = cores()
    trainer_core, worker_cores = available[0], available[1:]
    runnable = [k for k in workers if k <= len(worker_cores)]
    skipped = [{"workers": k, "reason": f"needs {k + 1} cores, this process may use {len(available)}"}
               for k in workers if k not in runnable]
    runs: dict[int, list[dict]] = {k: [] for k in runnable}
    load_before = os.getloadavg()[0]
    for r in range(rounds):
        order = runnable if r % 2 == 0 else list(reversed(runnable))  # neither side always runs first
        for k in order:
            with cluster(k, trainer_core, worker_cores, timeout) as target:
                runs[k].append(run_trainer(trainer_core, target, work, steps, warmup, width, timeout))
    rows = [{"workers": k, "steps_per_s": statistics.median(x["steps_per_s"] for x in runs[k]),
             "rounds": [round(x["steps_per_s"], 2) for x in runs[k]], "report": runs[k][-1]["report"]}
            for k in runnable]
    base = next((r for r in rows if r["workers"] == 0), None)
    projections = [(x["report"].get("data_service") or {}).get("projection") for x in runs.get(0, [])]
    projections = [p for p in projections if p]
    for row in rows:
        row["measured_speedup"] = row["steps_per_s"] / base["steps_per_s"] if base else None
        predicted = [q["speedup"] for p in projections for q in p["by_workers"] if q["workers"] == row["workers"]]
        row["projected_speedup"] = statistics.median(predicted) if predicted else None
    return {"cores": available, "rows": rows, "skipped": skipped,
            "projection": projections[-1] if projections else None, "rounds": rounds,
            "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            "work": work, "steps": steps, "batch": BATCH}


def render(result: dict) -> str:
    lines = [f"cores this process may use: {result['cores']} (trainer on core {result['cores'][0]},"
             " each worker on its own core; dispatcher on the trainer's core)",
             f"load average before/after: {result['load_average'][0]} / {result['load_average'][1]};"
             f" medians of {result['rounds']} alternating round(s)",
             f"{'workers':>7} {'steps/s':>8} {'measured':>9} {'projected':>9}  probe verdict / top action"]
    for row in result["rows"]:
        rep = row["report"]
        top = (rep.get("suggestions") or [{}])[0].get("action", "-")
        proj = f"{row['projected_speedup']:.2f}x" if row["projected_speedup"] else "-"
        lines.append(f"{row['workers']:>7} {row['steps_per_s']:>8.1f} {row['measured_speedup']:>8.2f}x"
                     f" {proj:>9}  {rep.get('verdict')} / {top}   rounds: {row['rounds']}")
    for skip in result["skipped"]:
        lines.append(f"{skip['workers']:>7} skipped: {skip['reason']}")
    proj = result["projection"]
    if proj:
        lines.append(f"probe (0 workers): pipeline {proj['pipeline_ms_per_batch']:.1f} ms/batch, model"
                     f" {proj['model_ms_per_step']:.1f} ms/step -> {proj['worker_cores_to_feed_one_trainer']}"
                     " worker core(s) to feed one trainer")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("role", nargs="?", default="compare", choices=["compare", "dispatcher", "worker", "trainer"])
    parser.add_argument("--core", type=int, default=0)
    parser.add_argument("--dispatcher")
    parser.add_argument("--workers", default="0,1")
    parser.add_argument("--work", type=int, default=12)
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    if args.role == "dispatcher":
        serve_dispatcher(args.core)
    elif args.role == "worker":
        serve_worker(args.core, args.dispatcher)
    elif args.role == "trainer":
        result = train(args.core, args.dispatcher, args.work, args.steps, args.warmup, args.width)
        print("RESULT " + json.dumps(result, default=str), flush=True)
        sys.stdout.flush()
        os._exit(0)  # TF can hang at exit with a live service iterator; the result is out
    else:
        result = compare(tuple(int(k) for k in args.workers.split(",")), args.work, args.steps,
                         args.warmup, args.width, rounds=args.rounds)
        print(render(result))
        if args.json:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump(result, fh, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
