"""An instructor's tools for a class: grading (grade), collecting the class's notebooks from a hub (collect), the
lesson plans (lessons), and a JupyterHub on 127.0.0.1 for the tests and the classroom benchmark (hub).

Run them from the repository root: `python -m classroom.grade submissions/`.
"""
