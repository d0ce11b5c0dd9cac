"""The modules of pallas-lsp's JAX knowledge extractors (extract_knowledge.py,
import-based; extract_knowledge_static.py, source-only), one job each:
config (which JAX modules and sites are read), source_ast (facts read from
JAX's source AST, shared), hardware, live_* (the import-based readers),
static_* (the source-only readers) and table (the output format).

Imports no JAX at module level: the static extractor imports this package
with pallas-lsp's own interpreter."""
