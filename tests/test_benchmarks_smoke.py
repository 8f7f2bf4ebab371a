"""Benchmark scripts run (cheaply, on examples/) and their figures hold together."""
import json

from benchmarks import profile_phases

ROOT = profile_phases.ROOT


def test_profile_phases_on_examples(tmp_path, capsys):
    out = tmp_path / "profile.json"
    assert profile_phases.main([str(ROOT / "examples"), "--top", "5", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    phases = figures["phases"]
    assert phases["files"] >= 10 and phases["findings"] > 0
    # The phases and the unattributed rest add up to the total; the work is where it should be.
    assert abs(sum(phases["phases"].values()) + phases["other_s"] - phases["total_s"]) < 1e-6
    for phase in ("parse", "model", "rules", "positions", "report"):
        assert phases["phases"][phase] > 0, phase
    assert any(row["phase"] == "rules" and row["detail"].startswith("PL") for row in phases["details"])
    assert len(figures["functions"]["functions"]) == 5
    printed = capsys.readouterr().out
    assert "load average before" in printed and "not separated cleanly" in printed
