"""The Tensil-style processing unit (TCU): architectures, arithmetic, data layout, programs and files."""
