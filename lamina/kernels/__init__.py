"""The graph ops' semantics as NumPy kernels, shared by constant folding, backends and every interpreter."""
