"""Proven brackets for many compositions: one-step loss cells (``loss_cells``), their
lattice compositions in Arb (``lattice``) and discrete pairs on their own lattice
(``aligned``)."""
