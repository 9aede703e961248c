"""Mechanism catalogue: dominating pairs for base mechanisms x sampling schemes x
adjacency relations (001 Sections 4-7, 002 Sections 2-4, 003 Section 3, 004 Section 3).
"""
