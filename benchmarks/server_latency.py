"""How fast `pipelint server` answers an edit, and whether its memory stays flat, next to the CLI.

The real server runs as a subprocess (`python -m pipelint server`) and is driven over stdio by
pygls' own client, as an editor drives it:

1. **Latency.** A generated 1,000-line training module (100 input-pipeline functions, some with
   findings) is opened; then `--latency-edits` edits (default 20) are sent one at a time as
   incremental `didChange` notifications, each changing one number in a different function. The
   latency of an edit is the wall time from sending it to receiving the `publishDiagnostics` for
   that document version; the server's debounce (`DEBOUNCE_S`) is part of it, as it is for a
   user. Median, min and max are reported. Target: median <= 100 ms. Beside it, the same check
   run in this process (the engine alone), alternating with the edits: the difference is what
   the server adds.
2. **Side by side**, in the same run and on the same text: `pipelint check --stdin-filename
   FILE -` as a new process per edit (what an editor integration without a server pays), the
   same number of times, alternating with the server's edits; the ratio CLI / server is reported.
3. **Memory.** `--memory-edits` edits (default 1,000), each waited for, and the server process's
   resident set size (VmRSS from /proc) read every 100 edits. The growth from edit 100 (after
   warm-up) to the last is reported; target: under 10% (flat).

    python benchmarks/server_latency.py                      # both, about 2-3 minutes on 2 cores
    python benchmarks/server_latency.py --memory-edits 0     # latency only
    python benchmarks/server_latency.py --memory-edits 0 --functions 20   # a 200-line script
    python benchmarks/server_latency.py --json out.json

Quote `uptime`'s load average beside the figures: on a shared machine they move with the load.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

LATENCY_TARGET_S = 0.100
MEMORY_GROWTH_TARGET = 0.10


def generated_module(functions: int = 100) -> str:
    """About 10 lines per input-pipeline function, plus a short header and footer."""
    lines = ['"""Input pipelines for a family of image models (generated for a benchmark)."""',
             "import tensorflow as tf", "", "AUTOTUNE = tf.data.AUTOTUNE", "", "",
             "def parse_example(record):",
             "    # a random op: tf.data cannot parallelize this map on its own (PL101 where serial)",
             "    image = tf.io.parse_tensor(record, tf.float32)",
             "    return tf.image.random_flip_left_right(image)", "", ""]
    for i in range(functions):
        parallel = "" if i % 3 == 0 else ", num_parallel_calls=AUTOTUNE"
        lines += [
            f"def make_dataset_{i}(files, batch_size={32 + i}):",
            f'    """Pipeline {i}: read, parse, shuffle, batch."""',
            "    ds = tf.data.TFRecordDataset(files)",
            f"    ds = ds.map(parse_example{parallel})",
            f"    ds = ds.shuffle({1000 + i})",
            "    ds = ds.batch(batch_size)",
            "    ds = ds.prefetch(AUTOTUNE)",
            "    return ds",
            "",
            "",
        ]
    # Every pipeline is trained on: a function nothing calls is dead code, and its findings dropped.
    names = [f"make_dataset_{i}" for i in range(functions)]
    lines += ["model = tf.keras.Sequential([tf.keras.layers.Dense(1)])",
              "model.compile(optimizer='adam', loss='mse')",
              "PIPELINES = ["]
    lines += [f"    {', '.join(names[i:i + 6])}," for i in range(0, len(names), 6)]
    lines += ["]", "for make_dataset in PIPELINES:",
              "    model.fit(make_dataset(['train.tfrecord']), epochs=1)"]
    return "\n".join(lines) + "\n"


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


class Driver:
    def __init__(self, root: Path) -> None:
        self.client = LanguageClient("server-latency", "1")
        self.root = root
        self.published: dict[tuple[str, int | None], float] = {}
        self.event = asyncio.Event()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            self.published[(params.uri, params.version)] = time.perf_counter()
            self.event.set()

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def on_log(params) -> None:
            pass

    async def start(self) -> None:
        await self.client.start_io(sys.executable, "-m", "pipelint", "server")
        await self.client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=self.root.as_uri()))
        self.client.initialized(types.InitializedParams())

    @property
    def pid(self) -> int:
        return self.client._server.pid

    async def wait(self, uri: str, version: int, timeout: float = 60.0) -> float:
        deadline = time.perf_counter() + timeout
        while (uri, version) not in self.published:
            self.event.clear()
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError(f"no diagnostics for version {version}")
            try:
                await asyncio.wait_for(self.event.wait(), remaining)
            except asyncio.TimeoutError:
                pass
        return self.published[(uri, version)]

    def open(self, uri: str, text: str) -> None:
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))

    def change(self, uri: str, version: int, line: int, start: int, end: int, new_text: str) -> float:
        sent = time.perf_counter()
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=line, character=start),
                                  end=types.Position(line=line, character=end)), text=new_text)]))
        return sent

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


def edit_sites(text: str) -> list[tuple[int, int, int]]:
    """(line, start, end) of the batch-size default of each function: the number edited."""
    sites = []
    for number, line in enumerate(text.splitlines()):
        if line.startswith("def make_dataset_"):
            start = line.index("batch_size=") + len("batch_size=")
            end = line.index(")", start)
            sites.append((number, start, end))
    return sites


def apply(text: str, line: int, start: int, end: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[line] = lines[line][:start] + new + lines[line][end:]
    return "".join(lines)


def cli_once(path: Path, text: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pipelint", "check", "--stdin-filename", str(path), "-",
                    "--output-format", "concise", "--exit-zero", "-q"],
                   input=text.encode(), capture_output=True, check=True, cwd=path.parent)
    return time.perf_counter() - started


async def run(args) -> dict:
    root = Path(tempfile.mkdtemp(prefix="pipelint-server-bench-"))
    path = root / "pipelines.py"
    text = generated_module(args.functions)
    path.write_text(text)
    uri = path.as_uri()
    driver = Driver(root)
    await driver.start()
    driver.open(uri, text)
    opened = time.perf_counter()
    await driver.wait(uri, 1)
    first = driver.published[(uri, 1)] - opened
    sites = edit_sites(text)
    version = 1
    server, engine, cli = [], [], []
    # The engine's own share: the same check in this process (no LSP, no process start),
    # alternating with the server's edits so that both see the same load.
    from pipelint.server.linting import Linter

    linter = Linter(root)
    for index in range(args.latency_edits):
        line, start, end = sites[index % len(sites)]
        new = str(int(text.splitlines()[line][start:end]) + 1)
        version += 1
        sent = driver.change(uri, version, line, start, end, new)
        text = apply(text, line, start, end, new)
        server.append(await driver.wait(uri, version) - sent)
        started = time.perf_counter()
        linter.check_python(text, path)
        engine.append(time.perf_counter() - started)
        if args.cli:
            cli.append(cli_once(path, text))
    result = {
        "lines": len(text.splitlines()), "first_check_s": first,
        "engine_in_process_s": {"median": statistics.median(engine), "min": min(engine), "max": max(engine)},
        "server_edit_s": {"median": statistics.median(server), "min": min(server), "max": max(server),
                          "n": len(server)},
        "load_average": os.getloadavg(),
    }
    if cli:
        result["cli_stdin_s"] = {"median": statistics.median(cli), "min": min(cli), "max": max(cli), "n": len(cli)}
        result["cli_over_server"] = statistics.median(cli) / statistics.median(server)
    if args.memory_edits:
        samples = []
        for index in range(args.memory_edits):
            line, start, end = sites[index % len(sites)]
            new = str(int(text.splitlines()[line][start:end]) + 1)
            version += 1
            driver.change(uri, version, line, start, end, new)
            text = apply(text, line, start, end, new)
            await driver.wait(uri, version)
            if (index + 1) % 100 == 0:
                samples.append((index + 1, rss_bytes(driver.pid)))
        base = samples[0][1]
        result["memory"] = {"rss_mib": [(n, round(b / 2**20, 1)) for n, b in samples],
                            "growth_after_warmup": samples[-1][1] / base - 1}
    await driver.stop()
    result["load_average_after"] = os.getloadavg()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-edits", type=int, default=20)
    parser.add_argument("--functions", type=int, default=100,
                        help="pipeline functions in the generated module, about 10 lines each (default 100: 1,000 lines)")
    parser.add_argument("--memory-edits", type=int, default=1000)
    parser.add_argument("--no-cli", dest="cli", action="store_false", help="skip the CLI side by side")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    edit = result["server_edit_s"]
    print(f"cores {os.cpu_count()}, load average before {result['load_average']}, after {result['load_average_after']}")
    print(f"file: {result['lines']} lines; first check on open {result['first_check_s'] * 1000:.0f} ms")
    met = "met" if edit["median"] <= LATENCY_TARGET_S else "not met"
    print(f"server, edit -> diagnostics: median {edit['median'] * 1000:.1f} ms (min {edit['min'] * 1000:.1f}, "
          f"max {edit['max'] * 1000:.1f}, n={edit['n']}); target <= {LATENCY_TARGET_S * 1000:.0f} ms: {met}")
    engine = result["engine_in_process_s"]
    print(f"the engine alone on the same text, in-process: median {engine['median'] * 1000:.1f} ms "
          f"(min {engine['min'] * 1000:.1f}); the server adds {(edit['median'] - engine['median']) * 1000:.1f} ms "
          "(debounce, LSP, its worker thread)")
    if "cli_stdin_s" in result:
        cli = result["cli_stdin_s"]
        print(f"CLI --stdin-filename, one process per edit: median {cli['median'] * 1000:.1f} ms "
              f"(min {cli['min'] * 1000:.1f}, max {cli['max'] * 1000:.1f}); CLI / server = {result['cli_over_server']:.1f}x")
    if "memory" in result:
        memory = result["memory"]
        met = "met" if memory["growth_after_warmup"] <= MEMORY_GROWTH_TARGET else "not met"
        print("server RSS (MiB) by edits: " + ", ".join(f"{n}: {m}" for n, m in memory["rss_mib"]))
        print(f"growth from edit 100 to the last: {memory['growth_after_warmup'] * 100:+.1f}% "
              f"(target <= {MEMORY_GROWTH_TARGET * 100:.0f}%: {met})")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
