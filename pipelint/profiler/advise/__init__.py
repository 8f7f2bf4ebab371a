"""Advise: measurements -> verdict, suggestions with priced speedups, determinism, the tf.data
service projection, and `--verify`'s judging of measured speedups against predictions.

Imports `measure` only.
"""
