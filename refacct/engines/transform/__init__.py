"""Many steps by inverting the moment generating function of the privacy loss, every error
term bounded in ball arithmetic (``inversion``); the one-step transforms it composes
(``mgf``)."""
