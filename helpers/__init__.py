"""Several Spotlights: the finished pieces the chapters build step by step."""

from helpers.attention import AttentionHead, MultiHeadAttention, causal_mask, spotlight
from helpers.model import (
    CourseConfig,
    CourseModel,
    attention_layer_size,
    count_parameters,
    course_model,
    course_size_table,
)
from helpers.plots import presenter_mode

__all__ = [
    "AttentionHead",
    "CourseConfig",
    "CourseModel",
    "MultiHeadAttention",
    "attention_layer_size",
    "causal_mask",
    "count_parameters",
    "course_model",
    "course_size_table",
    "presenter_mode",
    "spotlight",
]
