"""Several Spotlights: the finished pieces the chapters build step by step.

Importing `helpers` (or any module in it) has no side effects: it imports neither plotly nor ipywidgets and
leaves torch's thread count alone. `helpers.explore` and `helpers.presenter_mode` are imported on first use,
because they pull in ipywidgets and plotly; torch's threads are set by training (helpers.threads).
"""

from typing import Any

from helpers.attention import AttentionHead, MultiHeadAttention, causal_mask, spotlight
from helpers.checkpoints import CheckpointError, load_model
from helpers.course import course_size_table
from helpers.model import CourseConfig, CourseModel, attention_layer_size, count_parameters, course_model

__all__ = [
    "AttentionHead",
    "CheckpointError",
    "CourseConfig",
    "CourseModel",
    "MultiHeadAttention",
    "attention_layer_size",
    "causal_mask",
    "count_parameters",
    "course_model",
    "course_size_table",
    "explore",
    "load_model",
    "presenter_mode",
    "spotlight",
]


def __getattr__(name: str) -> Any:
    """`explore` and `presenter_mode`, imported when first asked for."""
    if name == "explore":
        from helpers.explorer import explore

        return explore
    if name == "presenter_mode":
        from helpers.plots import presenter_mode

        return presenter_mode
    raise AttributeError(f"module 'helpers' has no attribute {name!r}")
