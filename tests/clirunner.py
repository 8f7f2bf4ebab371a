"""A click test runner that keeps stdout and stderr apart on every click version."""
from click.testing import CliRunner


def separate_streams_runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        return CliRunner()  # click >= 8.2 always keeps them apart
