"""Exact rationals: the privacy-loss distribution of discrete pairs and its compositions
(``discrete``)."""
