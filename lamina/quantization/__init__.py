"""Glow's precision stage: profiles of a float graph and the number formats chosen from them."""
