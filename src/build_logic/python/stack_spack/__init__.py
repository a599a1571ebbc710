"""stack's implementation of Spack's package API (`spack.package` and the
build systems), run at build time against the concrete spec of a node.

Written from the API's documented behaviour; no Spack code."""

# The request format and the layer's behaviour; part of the node hash (RS).
API_VERSION = 1
