"""Prediction: a network's latency on a board from its calibration alone.

- design: the calibration's synthetic shapes (a design over the shapes real layers take) and the
  layer-kernel family each job belongs to;
- cost_model: a family's time as a sum of cost terms, fitted (and cross-validated) from timed shapes;
- intervals: a prediction's interval past its family's shapes, and a whole model's;
- predictor: every layer of a network predicted, or marked with why it is not.

Pure computation: the calibration suite (suites.calibration) only runs the design's shapes on
the board; nothing here talks to a board or prints.
"""
