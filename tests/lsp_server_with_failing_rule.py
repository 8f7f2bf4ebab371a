"""`pipelint server` with rule PL101 broken on purpose (its check raises), for tests/test_server_robustness.py."""
from pipelint.rules import all_rules
from pipelint.server import serve


def _broken_check(self, ctx):
    raise RuntimeError("deliberately broken for a test")


all_rules()["PL101"].check = _broken_check
serve()
