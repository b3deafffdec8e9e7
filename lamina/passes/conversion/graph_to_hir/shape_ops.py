"""HIR forms of the shape ops: concat and reshape are placements, with no emitter.

The memory manager places a concat's inputs in its output's Vars (or plans
copies) and a layout-keeping reshape shares its input's Vars, so neither
computes anything on the accelerator.
"""

from __future__ import annotations

from .rules import PLACEMENT, RULES, Rule

for _name in ("concat", "reshape"):
    RULES.add(_name, Rule(PLACEMENT, None))
