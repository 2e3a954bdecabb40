"""One switch for builds without a kernel: the offline site and slides run every chapter with it on.

`tools/build_site.py` (and the slide builder) set `SPOTLIGHTS_STATIC=1` before executing a notebook. Every
widget factory (`explore()`, each chapter widget) then returns its static copy: a plotly figure or HTML
page with its own menus, which works in a browser with no kernel behind it.
"""

from __future__ import annotations

import html
import os

from IPython.display import HTML

STATIC_ENV = "SPOTLIGHTS_STATIC"
"""The environment variable that turns static copies on ("1") for the notebooks a build executes."""


def static_build() -> bool:
    """True when a site or slide build is executing this kernel: widgets should return their static copy."""
    return os.environ.get(STATIC_ENV, "") == "1"


def live_only(control: object, what: str) -> object:
    """`control` itself, or in a site or slide build a line saying what it does there instead.

    For inputs that have no static copy (a file-upload button): a page with no kernel behind it names the
    control rather than showing a blank output. Live, a control without hover text gets `what` as its tooltip
    (ipywidgets 8: 7's upload button has no tooltip to set, and shows none).
    """
    if not static_build():
        if getattr(control, "tooltip", "") is None:  # ipywidgets 8 shows a tooltip of "null" for a button with none
            control.tooltip = what
        return control
    return HTML(f"<p><em>{html.escape(what)}</em>: a live control, there when the notebook runs in JupyterLab "
                "or on Binder.</p>")
