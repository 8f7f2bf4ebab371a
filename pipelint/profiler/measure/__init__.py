"""Measure: what times and reads the running pipeline (stages from tf.data's model, steps, the
Python-stage timer, memory, the timeline, XProf traces, calibration, merged worker reports).

Imports no other room of the probe.
"""
