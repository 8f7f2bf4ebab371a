"""Keras facts: training calls (`fit`/`evaluate`/`predict` consumers), compile sites and the
objects they use, and whether a layer or model draws randomness.

Part of the `Interpreter` (see `frames`).
"""
from __future__ import annotations

import libcst as cst

from pipelint.model.catalogue import is_random_name
from pipelint.model.frames import Frame, InterpreterState
from pipelint.model.syntax import find_arg
from pipelint.model.values import CompileSite, DatasetValue, ObjectValue


class KerasFacts(InterpreterState):
    def _builds_random(self, call: cst.Call, qualified: str, frame: Frame) -> bool:
        if is_random_name(qualified):
            return True
        if qualified in ("keras.Sequential", "keras.models.Sequential"):
            for arg in call.args:
                for element in getattr(arg.value, "elements", ()):
                    value = element.value
                    if isinstance(value, cst.Call):
                        name = self.qualified_name(value.func)
                        if name and is_random_name(name):
                            return True
                    bound = frame.env.get(value.value) if isinstance(value, cst.Name) else None
                    if isinstance(bound, ObjectValue) and bound.random:
                        return True
        return False

    def _record_training_call(self, call: cst.Call, method: str, arg_values: list[object]) -> None:
        for arg, value in zip(call.args, arg_values):
            keyword = arg.keyword.value if arg.keyword else None
            if keyword in (None, "x") and isinstance(value, DatasetValue):
                if keyword is None and arg is not next((a for a in call.args if a.keyword is None), None):
                    continue
                self._consume(method, call, value, arg.value)
            elif keyword == "validation_data" and isinstance(value, DatasetValue):
                self._consume("validation", call, value, arg.value)

    def _record_compile(self, call: cst.Call, receiver: object, arg_values: list[object],
                        frame: Frame) -> None:
        optimizer = None
        arg = find_arg(call, "optimizer", 0)
        if arg is not None:
            value = arg_values[call.args.index(arg)]
            if isinstance(value, ObjectValue):
                optimizer = value
        model = receiver if isinstance(receiver, ObjectValue) else None
        self.compiles.append(CompileSite(call, model, optimizer, frame.loops, frame.arms))
