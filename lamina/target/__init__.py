"""Target descriptions: what the hardware is (architecture, arithmetic, layout, encoding, timing), as data."""
