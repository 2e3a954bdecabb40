"""Several Spotlights: the finished pieces the chapters build step by step.

`helpers.explore` is imported on first use, because the explorer pulls in ipywidgets and plotly.
Importing `helpers` sets torch's thread count once, to the CPUs this process may use (helpers.threads).
"""

from typing import Any

from helpers.attention import AttentionHead, MultiHeadAttention, causal_mask, spotlight
from helpers.checkpoints import CheckpointError, load_model
from helpers.model import (
    CourseConfig,
    CourseModel,
    attention_layer_size,
    count_parameters,
    course_model,
    course_size_table,
)
from helpers.plots import presenter_mode
from helpers.threads import apply_thread_policy

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

apply_thread_policy()


def __getattr__(name: str) -> Any:
    if name == "explore":
        from helpers.explorer import explore

        return explore
    raise AttributeError(f"module 'helpers' has no attribute {name!r}")
