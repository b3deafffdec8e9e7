"""Named pipelines: compositions of registered passes and pipelines.

A named pipeline is a `Pipeline` subclass registered with `@register_pipeline`
(see `lamina.passes.registry`); its options are dataclass fields and
`expand()` returns the elements it stands for, e.g.
`graph-dce,canonicalize`. Modules defining pipelines are imported here, which
registers them.
"""

from lamina.passes.registry import import_submodules

import_submodules(__name__, __path__)
