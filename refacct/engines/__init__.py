"""Engines: exact discrete (``discrete``), one continuous step (``onestep``), and
compositions by quadrature (``composed``); ``verify`` holds the two-evaluation error
bounds they share."""
