"""Compilation targets as data: what each supports, what it wants lowered, how it rewrites the graph."""
