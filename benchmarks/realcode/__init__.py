"""The real-code corpus: manifest, labels and `extract.py` (see README.md here)."""
