"""Put the whole probe in place for a session (tf.data hooks, then Keras hooks), or take it off.

    session = install(Session())
    ...  # build pipelines, train
    uninstall(session)
    report = build_report(session)
"""
from __future__ import annotations

from pipelint.profiler.run import hooks
from pipelint.profiler.run.session import Session

try:
    from pipelint.profiler.run.callback import install_keras_hooks
except ImportError:  # no Keras: tf.data pipelines in custom loops are still measured
    install_keras_hooks = None

active = hooks.active


def install(session: Session) -> Session:
    """Install every hook for `session` (nested calls count). Returns the session."""
    if hooks.install(session) and install_keras_hooks is not None:
        try:
            install_keras_hooks(session)
        except Exception as exc:
            session.fail("installing Keras hooks", exc)
    return session


def uninstall(session: Session, force: bool = False) -> None:
    """Undo one `install` (all with `force`); the last one restores everything patched."""
    hooks.uninstall(session, force=force)
