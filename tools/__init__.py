"""Maintainers' tools: the chapter list and notebook runner, checked outputs, the offline site and slides. Run them
as modules from the repository root (`python -m tools.build_site`); docs/architecture.md describes each."""
