"""The papers refacct implements, cited by key ("001 Thm 10.1" in docstrings and results).

``PAPERS[key]`` is a ``Paper`` (authors, title, year, arXiv identifier); ``cite(key)`` its
one-line citation.  docs/references.md lists them with the sections refacct implements.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict

__all__ = ["Paper", "PAPERS", "cite"]


@dataclass(frozen=True)
class Paper:
    authors: str
    title: str
    year: int
    arxiv: str

    def __str__(self) -> str:
        return f"{self.authors}, \"{self.title}\", {self.year}, arXiv:{self.arxiv}"


PAPERS: Dict[str, Paper] = {
    "001": Paper("Lebeda, Regehr, Kamath, Steinke", "Avoiding Pitfalls for Privacy Accounting "
                 "of Subsampled Mechanisms under Composition", 2024, "2405.20769"),
    "002": Paper("Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha, Zhang",
                 "How Private are DP-SGD Implementations?", 2024, "2403.17673"),
    "003": Paper("Ganesh", "Tight Group-Level DP Guarantees for DP-SGD with Sampling via "
                 "Mixture of Gaussians Mechanisms", 2024, "2401.10294"),
    "004": Paper("Ganesh", "Tighter Privacy Analysis for Truncated Poisson Sampling", 2025,
                 "2508.15089"),
}


def cite(key: str) -> str:
    """"001: Lebeda, Regehr, Kamath, Steinke, "Avoiding Pitfalls ...", 2024, arXiv:2405.20769"."""
    return f"{key}: {PAPERS[key]}"
