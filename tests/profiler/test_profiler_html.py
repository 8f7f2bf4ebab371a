"""The HTML report: self-contained, and laid out as intended in a real browser (headless Chromium).

The browser test runs where `chromium` (Debian package) is installed and is skipped elsewhere. It
loads the page with a small script appended that measures the laid-out SVG and writes what it
found into the DOM, which `--dump-dom` returns; it also leaves a screenshot (PIPELINT_SCREENSHOT_DIR,
else the test's tmp dir) for a person to look at.
"""
import json
import os
import re
import shutil
import subprocess

import pytest

from pipelint.profiler.output.html import render_html
from pipelint.profiler.measure.timeline import Timeline

CHROMIUM = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)


def _report():
    tl = Timeline()
    for epoch in range(2):
        tl.begin_epoch()
        for i in range(60):
            if epoch == 0 and i < 2:
                tl.add(0.6, 0.05, warmup=True)
            else:
                tl.add(0.009 + (0.05 if i == 30 else 0), 0.005)
    return {
        "script": "train.py", "verdict": "input-bound", "input_bound_fraction": 0.55, "step_time_ms": 9.0,
        "input_wait_ms": 5.0, "steps": 118, "step_source": "loop",
        "stages": [{"name": "map(<decode & parse>)", "op": "map", "source": {"path": "/x/train.py", "line": 9},
                    "elements": 944, "time_per_element_ms": 0.6, "time_per_batch_ms": 4.8, "parallelism": 1,
                    "buffer_size": None, "share": 0.9},
                   {"name": "batch", "op": "batch", "source": {"path": "/x/train.py", "line": 10}, "elements": 118,
                    "time_per_element_ms": 0.01, "time_per_batch_ms": 0.01, "parallelism": None,
                    "buffer_size": None, "share": 0.01}],
        "bottleneck": {"stage": "map(<decode & parse>)", "source": {"path": "/x/train.py", "line": 9}},
        "suggestions": [{"code": "PL101", "name": "map-without-parallelism", "message": "add num_parallel_calls",
                         "source": {"path": "/x/train.py", "line": 9}, "stage": "map", "expected_speedup": 1.8,
                         "action": "parallelize"},
                        {"code": "PL103", "name": "missing-prefetch", "message": "add prefetch",
                         "source": None, "stage": "batch", "expected_speedup": None}],
        "verification": {"steps": 60, "rounds": 3, "baseline_step_ms": 9.1, "top": {"label": "PL101 parallelize",
                                                                                 "status": "confirmed"},
                         "candidates": [{"label": "PL101 parallelize", "code": "PL101", "action": "parallelize",
                                         "expected_speedup": 1.8, "measured_speedup": 1.72, "measured_min": 1.6,
                                         "measured_max": 1.8, "status": "confirmed"}],
                         "not_verified": ["PL106 rewrite-tf-ops: a code rewrite"]},
        "memory": [], "pydataset_getitem": {}, "thresholds": {"input_bound": 0.2, "model_bound": 0.05},
        "probe_errors": [], "environment": {"tensorflow": "2.21", "keras": "3.15", "cpus": 2, "gpus": 0},
        "xprof": {"dir": "/x/xp", "trace": "/x/xp/plugins/profile/1/h.xplane.pb", "open": "xprof --logdir /x/xp",
                  "error": None, "analysis": {"steps": 119, "step_time_ms": 9.4, "input_wait_ms": 5.5,
                                              "input_bound_fraction": 0.59, "conclusion": "HIGHLY input-bound",
                                              "disagreement": []}},
        "timeline": tl.to_dict(),
    }


def test_page_is_self_contained_and_escaped():
    page = render_html(_report())
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"(?i)<script|<link|<img|<iframe|@import|url\(|https?://", page)
    assert "map(&lt;decode &amp; parse&gt;)" in page and "<decode" not in page
    assert "parallelize" in page and "measured 1.72" in page and "expected 1.80" in page
    assert "<h2>Verification</h2>" in page and "not verifiable: PL106" in page
    assert page.count("<svg") == 3  # the split bar, the timeline, the stage bars
    assert "epoch 2" in page and "warm-up" in page


def test_notebook_fragment_is_the_same_content_scoped():
    r = _report()
    frag = render_html(r, standalone=False)
    assert frag.startswith("<div class='pipelint-report'>") and "<html" not in frag and "<body" not in frag
    styles = re.search(r"<style>(.*?)</style>", frag, re.S).group(1)
    rules = [line for line in styles.splitlines() if line.strip()]
    assert rules and all(line.startswith(".pipelint-report") for line in rules)  # no global styles
    assert frag in render_html(r)


def test_no_steps_no_timeline():
    r = {**_report(), "steps": 0, "input_bound_fraction": None, "verdict": "unknown", "timeline": None,
         "stages": [], "suggestions": [], "xprof": None, "bottleneck": None}
    page = render_html(r)
    assert "No training steps were measured" in page and "<svg" not in page


MEASURE = """
<script>
const out = {};
const svgs = [...document.querySelectorAll('.pipelint-report svg')];
out.svgs = svgs.map(s => { const b = s.getBoundingClientRect(); return [Math.round(b.width), Math.round(b.height)]; });
const tl = svgs.find(s => (s.getAttribute('aria-label') || '').startsWith('step time and input wait'));
out.bars = tl ? [...tl.querySelectorAll('g > rect')].filter(r => r.getBBox().height > 0).length : 0;
out.epochLabels = tl ? [...tl.querySelectorAll('text')].map(t => t.textContent).filter(t => t.startsWith('epoch')) : [];
out.overflowX = document.documentElement.scrollWidth > window.innerWidth;
out.headings = [...document.querySelectorAll('h2')].map(h => h.textContent);
const pre = document.createElement('pre'); pre.id = 'measured'; pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>
"""


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")
def test_report_lays_out_in_headless_chromium(tmp_path):
    page = render_html(_report())
    (tmp_path / "report.html").write_text(page, encoding="utf-8")
    probe = tmp_path / "measure.html"
    probe.write_text(page.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--window-size=1100,1500", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(flags + ["--virtual-time-budget=2000", "--dump-dom", probe.as_uri()],
                         capture_output=True, text=True, timeout=90).stdout
    measured = json.loads(re.search(r"<pre id=\"measured\">(.*?)</pre>", dom, re.S).group(1)
                          .replace("&quot;", '"'))
    assert len(measured["svgs"]) == 3 and all(w > 100 and h > 10 for w, h in measured["svgs"])
    # 116 measured steps (input wait + work each) and 2 warm-up bars, all drawn.
    assert measured["bars"] >= 2 * 116 + 2
    assert measured["epochLabels"] == ["epoch 1", "epoch 2"]
    assert not measured["overflowX"]
    assert measured["headings"] == ["XProf", "Timeline", "Stages (time per delivered batch)",
                                    "Suggestions (best first)", "Verification"]
    shots = os.environ.get("PIPELINT_SCREENSHOT_DIR") or str(tmp_path)
    shot = os.path.join(shots, "pipelint-report.png")
    subprocess.run(flags + [f"--screenshot={shot}", (tmp_path / "report.html").as_uri()],
                   capture_output=True, timeout=90)
    with open(shot, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
