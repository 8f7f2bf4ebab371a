"""Output: the report (the one builder) and what shows it: text, JSON, HTML, notebooks, TensorBoard.

Imports `advise` and `measure`, never `run`.
"""
