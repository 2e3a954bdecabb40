"""Maintainers' tools: the chapter list and notebook runner, checked outputs, the offline site and slides.

Run them as modules from the repository root (`python -m tools.build_site`). The learners' package is
`helpers`; these modules import it, never the other way round (the import-linter contract in pyproject.toml).
"""
