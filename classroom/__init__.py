"""An instructor's tools for a class: grade, collect (from a hub), lessons (the plans), hub (a local JupyterHub)."""
