"""One switch for builds without a kernel: the offline site and slides run every chapter with it on.

`tools/build_site.py` (and the slide builder) set `SPOTLIGHTS_STATIC=1` before executing a notebook. Every
widget factory (`explore()`, each chapter widget) then returns its static copy: a plotly figure or HTML
page with its own menus, which works in a browser with no kernel behind it.
"""

from __future__ import annotations

import os

STATIC_ENV = "SPOTLIGHTS_STATIC"
"""The environment variable that turns static copies on ("1") for the notebooks a build executes."""


def static_build() -> bool:
    """True when a site or slide build is executing this kernel: widgets should return their static copy."""
    return os.environ.get(STATIC_ENV, "") == "1"
