"""Run: what starts and drives a probed job (command line, script runner, `probe()`, the Keras
callback, the tf.data and Keras hooks, the session they feed, notebooks, `--verify`'s child runs).

May import every other room; nothing outside `pipelint.profiler`'s top imports this one.
"""
