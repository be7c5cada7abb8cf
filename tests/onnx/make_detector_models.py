#!/usr/bin/env python3
"""Writes a quantized SSD-lite / FPN detector as ONNX Runtime's quantize_static would (QDQ,
MinMax calibration), with python3-onnx and numpy only: the float graph is evaluated in numpy
(qdq_numpy.py) on random calibration inputs while it is built, and each activation's scale and
zero point come from the range it took there.

Usage: make_detector_models.py OUT_DIR   (NAME.onnx and NAME.json, as make_qdq_models.py).

quantize_static's choices, as ST's model zoo sets them: int8 activations, asymmetric, their range
widened to hold 0; int8 weights symmetric per output channel in [-127, 127]; int32 biases of
scale input x weight. Reshape, Transpose, Resize and AveragePool keep their input's scale and
zero point; Conv (with its Relu or Clip fused), Add, Concat, Sigmoid and HardSwish get their own.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qdq_numpy  # noqa: E402


class Calibrated:
    def __init__(self, name, shape, seed=5, batch=8, uint8=False):
        self.name, self.shape, self.uint8 = name, shape, uint8
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0
        self.values = {}   # float name -> its value on the calibration batch
        self.qparams = {}  # dequantized name -> (scale, zero point)
        self.values["input"] = self.rng.uniform(-1, 1, [batch] + shape[1:]).astype(np.float32)
        self.x = self.quantize("input")

    def fresh(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def const(self, array, base):
        name = self.fresh(base)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op_type, inputs, values, base=None, **attrs):
        y = self.fresh(base or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [y], **attrs))
        self.values[y] = values
        return y

    def range_params(self, v):
        qmin, qmax = (0, 255) if self.uint8 else (-128, 127)
        lo, hi = min(float(v.min()), 0.0), max(float(v.max()), 0.0)
        scale = np.float32((hi - lo) / (qmax - qmin))
        return scale, int(np.round(qmin - lo / scale))

    def quantize(self, x, share=None):
        """QuantizeLinear and DequantizeLinear of float x, with x's calibrated range or the
        scale and zero point of dequantized value `share`."""
        scale, zp = self.qparams[share] if share else self.range_params(self.values[x])
        s = self.const(np.array(scale, np.float32), "scale")
        z = self.const(np.array(zp, np.uint8 if self.uint8 else np.int8), "zp")
        q, d = self.fresh("q"), self.fresh("dq")
        self.nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [q]))
        self.nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [d]))
        self.values[d] = self.values[x]  # calibrated on the float graph, as quantize_static
        self.qparams[d] = (scale, zp)
        return d

    def conv(self, x, cout, k, stride=1, group=1, activation="relu6"):
        cin = self.values[x].shape[1]
        fan_in = cin // group * k * k
        gain = 2.0 if activation else 1.0
        w = self.rng.uniform(-1, 1, (cout, cin // group, k, k)) * np.sqrt(3.0 * gain / fan_in)
        w = (w * self.rng.uniform(0.5, 1.5, (cout, 1, 1, 1))).astype(np.float32)  # folded BN
        b = self.rng.normal(0, 0.2, cout).astype(np.float32)
        w_scale = (np.abs(w).reshape(cout, -1).max(axis=1) / 127).astype(np.float32)
        wq = np.clip(np.round(w / w_scale.reshape(-1, 1, 1, 1)), -127, 127).astype(np.int8)
        wd = self.fresh("w_dq")
        self.nodes.append(helper.make_node(
            "DequantizeLinear", [self.const(wq, "w"), self.const(w_scale, "w_scale"),
                                 self.const(np.zeros(cout, np.int8), "w_zp")], [wd], axis=0))
        b_scale = (np.float32(self.qparams[x][0]) * w_scale).astype(np.float32)
        bq = np.round(b / b_scale).astype(np.int32)
        bd = self.fresh("b_dq")
        self.nodes.append(helper.make_node(
            "DequantizeLinear", [self.const(bq, "b"), self.const(b_scale, "b_scale"),
                                 self.const(np.zeros(cout, np.int32), "b_zp")], [bd], axis=0))
        p = k // 2
        attrs = dict(kernel_shape=[k, k], strides=[stride, stride], pads=[p] * 4, group=group)
        y = self.node("Conv", [x, wd, bd], qdq_numpy.conv(self.values[x], w, b, **attrs), **attrs)
        if activation == "relu6":
            lo, hi = self.const(np.array(0, np.float32), "min"), self.const(np.array(6, np.float32), "max")
            y = self.node("Clip", [y, lo, hi], np.clip(self.values[y], 0, 6))
        elif activation == "relu":
            y = self.node("Relu", [y], np.maximum(self.values[y], 0))
        elif activation == "hardswish":
            y = self.quantize(y)
            y = self.node("HardSwish", [y], qdq_numpy.hard_swish(self.values[y]))
        return self.quantize(y)

    def add(self, a, b):
        return self.quantize(self.node("Add", [a, b], self.values[a] + self.values[b]))

    def resize(self, x, mode):
        attrs = (dict(mode="nearest", coordinate_transformation_mode="asymmetric",
                      nearest_mode="floor") if mode == "nearest"
                 else dict(mode="linear", coordinate_transformation_mode="half_pixel"))
        scales = np.array([1, 1, 2, 2], np.float32)
        y = self.node("Resize", [x, self.const(np.array([], np.float32), "roi"),
                                 self.const(scales, "scales")],
                      qdq_numpy.resize(self.values[x], scales, **attrs), **attrs)
        return self.quantize(y, share=x)

    def average_pool(self, x, k, stride, pads):
        attrs = dict(kernel_shape=[k, k], strides=[stride, stride], pads=pads, count_include_pad=0)
        y = self.node("AveragePool", [x], qdq_numpy.average_pool(self.values[x], **attrs), **attrs)
        return self.quantize(y, share=x)

    def to_rows(self, x, width):
        """NCHW head output [1, A*width, H, W] to [1, H*W*A, width]: Transpose, Reshape."""
        v = self.values[x]
        t = self.node("Transpose", [x], np.transpose(v, (0, 2, 3, 1)), perm=[0, 2, 3, 1])
        t = self.quantize(t, share=x)
        shape = np.array([1, -1, width], np.int64)
        r = self.node("Reshape", [t, self.const(shape, "shape")],
                      self.values[t].reshape(v.shape[0], -1, width))
        return self.quantize(r, share=x)

    def concat(self, xs, axis):
        return self.quantize(self.node("Concat", xs, np.concatenate(
            [self.values[x] for x in xs], axis=axis), axis=axis))

    def sigmoid(self, x):
        return self.quantize(self.node("Sigmoid", [x], qdq_numpy.sigmoid(self.values[x])))

    def save(self, out_dir, outputs):
        """outputs: (dequantized name, graph output name)."""
        graph_outputs, meta = [], []
        for x, name in outputs:
            self.nodes.append(helper.make_node("Identity", [x], [name]))
            shape = [1] + list(self.values[x].shape[1:])
            graph_outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
            meta.append({"count": int(np.prod(shape)), "scale": float(self.qparams[x][0])})
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, self.shape)],
            graph_outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)],
                                  producer_name="mote-tests")
        model.ir_version = 7
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out_dir, self.name + ".onnx"))
        with open(os.path.join(out_dir, self.name + ".json"), "w") as f:
            json.dump({"input_shape": self.shape, "input_type": "float32",
                       "input_range": [-1.0, 1.0], "outputs": meta}, f)


def inverted_residual(g, x, cout, stride, expand, activation="relu6"):
    cin = g.values[x].shape[1]
    y = x
    if expand != 1:
        y = g.conv(y, cin * expand, 1, activation=activation)
    hidden = g.values[y].shape[1]
    y = g.conv(y, hidden, 3, stride, group=hidden, activation=activation)
    y = g.conv(y, cout, 1, activation=None)
    return g.add(x, y) if stride == 1 and cin == cout else y


def detector(out_dir, name="qdq_detector", size=64, uint8=False, seed=5):
    """A MobileNetV2 backbone (inverted residuals with residual Adds, HardSwish in two blocks)
    on a [1, 3, size, size] image; a feature pyramid (1x1 laterals, nearest and bilinear 2x
    Resize added to them, depthwise separable smoothing, an AveragePool level); SSD-lite heads of
    3 anchors per cell, 4 box values and 4 classes, each head's Transpose and Reshape to rows,
    Concat over the four levels: boxes [1, N, 4] and Sigmoid scores [1, N, 4]."""
    g = Calibrated(name, [1, 3, size, size], seed=seed, uint8=uint8)
    x = g.conv(g.x, 16, 3, 2)                                  # size / 2
    x = inverted_residual(g, x, 8, 1, 1)
    x = inverted_residual(g, x, 12, 2, 4)                      # size / 4
    c3 = inverted_residual(g, x, 12, 1, 4)
    x = inverted_residual(g, c3, 16, 2, 4)                     # size / 8
    x = inverted_residual(g, x, 16, 1, 4, activation="hardswish")
    c4 = inverted_residual(g, x, 16, 1, 4, activation="hardswish")
    x = inverted_residual(g, c4, 24, 2, 4)                     # size / 16
    c5 = inverted_residual(g, x, 24, 1, 4)
    p5 = g.conv(c5, 16, 1, activation=None)
    p4 = g.add(g.conv(c4, 16, 1, activation=None), g.resize(p5, "nearest"))
    p3 = g.add(g.conv(c3, 16, 1, activation=None), g.resize(p4, "linear"))
    p6 = g.average_pool(p5, 3, 2, [0, 0, 1, 1])                         # size / 32
    anchors, classes = 3, 4
    boxes, scores = [], []
    for p in (p3, p4, p5, p6):
        p = g.conv(g.conv(p, 16, 3, group=16), 16, 1)
        box = g.conv(g.conv(p, 16, 3, group=16), anchors * 4, 1, activation=None)
        cls = g.conv(g.conv(p, 16, 3, group=16), anchors * classes, 1, activation=None)
        boxes.append(g.to_rows(box, 4))
        scores.append(g.to_rows(cls, classes))
    g.save(out_dir, [(g.concat(boxes, 1), "boxes"), (g.sigmoid(g.concat(scores, 1)), "scores")])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    detector(out)


if __name__ == "__main__":
    main()
