"""The series' shipped files: checkpoints, the novels and the measured results the chapters read.

Installed as the package `helpers.assets` (see pyproject.toml), so a regular install carries them;
`helpers.checkpoints.ASSETS` is this folder.
"""
