"""tf.data service: `ds.apply(tf.data.experimental.service.distribute(...))` read as an op.

The model keeps `apply(...)` as an ordinary op; this module says whether one is a hand-off to the
tf.data service and with which processing mode and job. Everything before that op on a path runs on
the service's workers; everything after it runs in the trainer (TF's `distribute` docstring).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import libcst as cst

from pipelint.model.syntax import find_arg, is_none
from pipelint.model.values import Op

DISTRIBUTE = "tensorflow.data.experimental.service.distribute"
SHARDING_POLICY = "tensorflow.data.experimental.service.ShardingPolicy."
SHARD_HINT = "tensorflow.data.experimental.SHARD_HINT"
# The legacy string spellings (`processing_mode="parallel_epochs"`) and what they mean.
_MODE_STRINGS = {"parallel_epochs": "OFF", "distributed_epoch": "DYNAMIC"}


@dataclass(frozen=True)
class ServiceHandOff:
    """One `apply(distribute(...))`: where the pipeline leaves the trainer for the service."""

    op: Op  # the `apply` op
    call: cst.Call  # the `distribute(...)` call
    #: `ShardingPolicy` member name ("OFF", "DYNAMIC", "FILE", "DATA", "FILE_OR_DATA", "HINT"),
    #: None when the source does not say (a variable, a flag).
    processing_mode: str | None
    #: The `job_name` argument when one is given and is not literally None: trainers share the job.
    job_name: cst.Arg | None


def service_hand_off(op: Op, resolve: Callable[[cst.BaseExpression], str | None]) -> ServiceHandOff | None:
    if op.name != "apply" or not op.call.args:
        return None
    value = op.call.args[0].value
    if not isinstance(value, cst.Call) or resolve(value.func) != DISTRIBUTE:
        return None
    mode = find_arg(value, "processing_mode", 0)
    job = find_arg(value, "job_name", 2)
    if job is not None and is_none(job.value):
        job = None
    return ServiceHandOff(op, value, _mode(mode.value, resolve) if mode else None, job)


def _mode(expr: cst.BaseExpression, resolve: Callable[[cst.BaseExpression], str | None]) -> str | None:
    if isinstance(expr, cst.SimpleString):
        return _MODE_STRINGS.get(str(expr.evaluated_value))
    name = resolve(expr) or ""
    return name[len(SHARDING_POLICY):] if name.startswith(SHARDING_POLICY) else None
