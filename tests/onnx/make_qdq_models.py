#!/usr/bin/env python3
"""Writes small quantized ONNX test graphs in QDQ form with python3-onnx (Debian's python3-onnx).

Usage: make_qdq_models.py OUT_DIR   (writes NAME.onnx and NAME.json per model: input shape and
type, output scale). Weights are pseudo-random from a fixed seed, sized so that every layer
keeps its input's magnitude; activations keep one scale, so nothing saturates much.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Qdq:
    """A graph built as ONNX Runtime's quantize_static writes it: DequantizeLinear before, and
    QuantizeLinear after, every float operator."""

    def __init__(self, name, shape, uint8=False, opset=13, ir_version=7, seed=1, first=None):
        self.name, self.uint8, self.opset, self.ir_version = name, uint8, opset, ir_version
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0
        self.scale = 0.025
        self.zp = 128 if uint8 else 0
        self.input_shape = shape
        x = "input"
        if first is not None:  # a float operator before the first QuantizeLinear
            x = self.fresh(first[0].lower())
            self.nodes.append(helper.make_node(first[0], ["input"], [x], **first[1]))
        self.x = self.quantize(x, self.scale)

    def fresh(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def const(self, array, base):
        name = self.fresh(base)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def qparams(self, scale, zp=None):
        zp = np.array(self.zp if zp is None else zp, np.uint8 if self.uint8 else np.int8)
        return self.const(np.array(scale, np.float32), "scale"), self.const(zp, "zp")

    def quantize(self, x, scale, zp=None):
        """Q then DQ of float value x: returns the dequantized float name."""
        s, z = self.qparams(scale, zp)
        q, d = self.fresh("q"), self.fresh("dq")
        self.nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [q]))
        self.nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [d]))
        return d

    def weights(self, shape, fan_in, per_channel=True):
        w = self.rng.uniform(-1, 1, shape).astype(np.float32) * np.float32(np.sqrt(3.0 / fan_in))
        axis_values = np.abs(w).reshape(shape[0], -1).max(axis=1) if per_channel else np.abs(w).max()
        scales = (np.maximum(axis_values, 1e-6) / 127).astype(np.float32)
        bshape = (-1,) + (1,) * (len(shape) - 1) if per_channel else ()
        q = np.clip(np.round(w / scales.reshape(bshape)), -127, 127).astype(np.int8)
        qn = self.const(q, "w")
        sn = self.const(scales, "w_scale")
        zn = self.const(np.zeros(scales.shape, np.int8), "w_zp")
        d = self.fresh("w_dq")
        attrs = {"axis": 0} if per_channel else {}
        self.nodes.append(helper.make_node("DequantizeLinear", [qn, sn, zn], [d], **attrs))
        return d, scales

    def bias(self, channels, w_scales):
        s = (np.float32(self.scale) * w_scales).astype(np.float32)
        if s.ndim and self.opset < 13 and np.all(s == s[0]):
            s = s[0]  # no per-axis DequantizeLinear before opset 13
        b = self.rng.integers(-2000, 2000, channels).astype(np.int32)
        qn, sn = self.const(b, "b"), self.const(s, "b_scale")
        zn = self.const(np.zeros(s.shape, np.int32), "b_zp")
        d = self.fresh("b_dq")
        attrs = {"axis": 0} if s.ndim else {}
        self.nodes.append(helper.make_node("DequantizeLinear", [qn, sn, zn], [d], **attrs))
        return d

    def op_int64(self, op_type, inputs, **attrs):
        """A node whose int64 result (ArgMax's) is not quantized."""
        y = self.fresh(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [y], **attrs))
        return y

    def op(self, op_type, inputs, scale=None, activation=None, zp=None, **attrs):
        y = self.fresh(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [y], **attrs))
        if activation == "relu":
            r = self.fresh("relu")
            self.nodes.append(helper.make_node("Relu", [y], [r]))
            y = r
        elif activation == "relu6":
            r = self.fresh("clip")
            lo = self.const(np.array(0, np.float32), "min")
            hi = self.const(np.array(6, np.float32), "max")
            self.nodes.append(helper.make_node("Clip", [y, lo, hi], [r]))
            y = r
        return self.quantize(y, self.scale if scale is None else scale, zp)

    def conv(self, x, cin, cout, k, stride=1, pads=None, group=1, activation=None, per_channel=True):
        p = k // 2
        w, ws = self.weights((cout, cin // group, k, k), cin // group * k * k, per_channel)
        b = self.bias(cout, ws if per_channel else np.full(cout, ws, np.float32))
        return self.op("Conv", [x, w, b], activation=activation, kernel_shape=[k, k],
                       strides=[stride, stride], pads=pads if pads is not None else [p, p, p, p],
                       group=group)

    def save(self, out_dir, outputs, output_scale, output_shape, declared_input=None,
             indices=False):
        """`indices`: the output is int64 (ArgMax's), compared exactly (output_scale 0)."""
        out_name = "output"
        self.nodes.append(helper.make_node("Identity", [outputs], [out_name]))
        elem = TensorProto.FLOAT
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info("input", elem, declared_input or self.input_shape)],
            [helper.make_tensor_value_info(out_name, TensorProto.INT64 if indices else elem,
                                           output_shape)], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset),
                                                        helper.make_opsetid("com.microsoft", 1)],
                                  producer_name="mote-tests")
        model.ir_version = self.ir_version
        onnx.save(model, os.path.join(out_dir, self.name + ".onnx"))
        meta = {"input_shape": self.input_shape, "input_type": "float32",
                "input_range": [-1.0, 1.0], "output_scale": output_scale}
        if indices:
            meta.update(output_type="int64", output_scale=0)
        with open(os.path.join(out_dir, self.name + ".json"), "w") as f:
            json.dump(meta, f)


def cnn(out_dir, name, uint8=False):
    """Convolutions (plain, depthwise with pads TFLite's SAME does not give, grouped), fused
    Relu and Clip(0, 6), a residual Add, pools, Flatten, Gemm, Softmax."""
    g = Qdq(name, [1, 3, 16, 16], uint8=uint8)
    x = g.conv(g.x, 3, 8, 3, activation="relu")
    x = g.conv(x, 8, 8, 3, stride=2, group=8, activation="relu6")  # depthwise, pads 1 1 1 1
    y = g.conv(x, 8, 8, 1)
    y = g.conv(y, 8, 8, 3, group=2, activation="relu")  # grouped
    x = g.op("Add", [x, y])
    x = g.op("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = g.op("AveragePool", [x], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1],
             count_include_pad=0)
    x = g.op("Flatten", [x], axis=1)
    w, ws = g.weights((10, 8 * 4 * 4), 8 * 4 * 4, per_channel=False)
    b = g.bias(10, np.full(10, ws, np.float32))
    x = g.op("Gemm", [x, w, b], transB=1)
    x = g.op("Softmax", [x], scale=1.0 / 256, axis=1)
    g.save(out_dir, x, 1.0 / 256, [1, 10])


def kws(out_dir):
    """A DS-CNN-like keyword model: a 1-channel [1,1,49,10] input, depthwise separable blocks,
    GlobalAveragePool, MatMul + Add as the classifier; opset 18 and IR 9 (ReduceMean's axes an
    input), newer than Debian's ONNX library."""
    g = Qdq("qdq_kws_opset18", [1, 1, 49, 10], opset=18, ir_version=9)
    x = g.conv(g.x, 1, 16, 3, stride=2, activation="relu", pads=[1, 1, 1, 1])
    for _ in range(2):
        x = g.conv(x, 16, 16, 3, group=16, activation="relu")
        x = g.conv(x, 16, 16, 1, activation="relu")
    axes = g.const(np.array([2, 3], np.int64), "axes")
    x = g.op("ReduceMean", [x, axes], keepdims=1)
    shape = g.const(np.array([1, 16], np.int64), "shape")
    x = g.op("Reshape", [x, shape])
    w, _ = g.weights((16, 12), 16, per_channel=False)
    x = g.op("MatMul", [x, w])
    c, _ = g.weights((1, 12), 1, per_channel=False)
    x = g.op("Add", [x, c])
    g.save(out_dir, x, g.scale, [1, 12])


def branches(out_dir):
    """Concat of two branches, a Transpose the reader folds, Reshape and Mul by a constant."""
    g = Qdq("qdq_branches", [1, 4, 8, 8], uint8=True)
    a = g.conv(g.x, 4, 6, 3)
    b = g.conv(g.x, 4, 2, 1, activation="relu")
    x = g.op("Concat", [a, b], axis=1)
    x = g.op("Transpose", [x], perm=[0, 2, 3, 1])  # NHWC: what the kernels hold already
    c, _ = g.weights((1, 1, 1, 8), 3, per_channel=False)
    x = g.op("Mul", [x, c])
    shape = g.const(np.array([1, 64, 8], np.int64), "shape")
    x = g.op("Reshape", [x, shape])
    g.save(out_dir, x, g.scale, [1, 64, 8])


def more_operators(out_dir):
    """One model per further operator, each after a convolution: Sigmoid, Tanh, HardSwish,
    LeakyRelu, PRelu, Sub, Pad, Resize (nearest and linear). One operator each, because a chain
    would pile up the one-step differences of TFLite's rounding (see the README)."""
    def sub(g, x):
        return g.op("Sub", [x, g.x])

    def prelu(g, x):
        slope, _ = g.weights((8, 1, 1), 1, per_channel=False)
        return g.op("PRelu", [x, slope])

    def hard_swish_opset13(g, x):  # PyTorch's nn.Hardswish exported at opset 13
        y = g.fresh("hardsigmoid")
        g.nodes.append(helper.make_node("HardSigmoid", [x], [y], alpha=1.0 / 6, beta=0.5))
        return g.op("Mul", [x, y])

    def pad(g, x):
        pads = g.const(np.array([0, 0, 1, 2, 0, 0, 1, 0], np.int64), "pads")
        return g.op("Pad", [x, pads])

    def resize(mode, coordinates, **attrs):
        def build(g, x):
            roi = g.const(np.array([], np.float32), "roi")
            scales = g.const(np.array([1, 1, 2, 2], np.float32), "scales")
            return g.op("Resize", [x, roi, scales], mode=mode,
                        coordinate_transformation_mode=coordinates, **attrs)
        return build

    cases = {
        "sigmoid": (lambda g, x: g.op("Sigmoid", [x], scale=1.0 / 256), 1.0 / 256, [1, 8, 6, 6]),
        "tanh": (lambda g, x: g.op("Tanh", [x], scale=1.0 / 128), 1.0 / 128, [1, 8, 6, 6]),
        "hardswish": (lambda g, x: g.op("HardSwish", [x]), None, [1, 8, 6, 6]),
        "hardsigmoid_mul": (hard_swish_opset13, None, [1, 8, 6, 6]),
        "leakyrelu": (lambda g, x: g.op("LeakyRelu", [x], alpha=0.13), None, [1, 8, 6, 6]),
        "prelu": (prelu, None, [1, 8, 6, 6]),
        "sub": (sub, None, [1, 8, 6, 6]),
        "pad": (pad, None, [1, 8, 8, 8]),
        "resize_nearest": (resize("nearest", "asymmetric", nearest_mode="floor"), None,
                           [1, 8, 12, 12]),
        "resize_linear": (resize("linear", "half_pixel"), None, [1, 8, 12, 12]),
    }
    for name, (build, scale, shape) in cases.items():
        g = Qdq("qdq_op_" + name, [1, 8, 6, 6], opset=14)
        x = build(g, g.conv(g.x, 8, 8, 3))
        g.save(out_dir, x, scale or g.scale, shape)


def table_functions(out_dir):
    """ONNX's elementwise functions Mote runs as tables (MoteTableLookup), one model each after
    a convolution (after a ReLU for Log, Sqrt and Reciprocal, defined for x >= 0), quantized to
    a scale and zero point that hold the function's range; and MobileNetV3's squeeze-excite
    block, whose HardSigmoid gates another value than its input."""
    relu = {"Log", "Sqrt", "Reciprocal"}
    cases = {  # name: (op, opset, attributes, output scale, output zero point)
        "hardsigmoid": ("HardSigmoid", 13, {"alpha": 0.3, "beta": 0.4}, 1.0 / 255, -128),
        "elu": ("Elu", 13, {"alpha": 0.7}, None, None),
        "selu": ("Selu", 13, {}, 0.04, None),
        "celu": ("Celu", 13, {"alpha": 1.5}, None, None),
        "thresholdedrelu": ("ThresholdedRelu", 13, {"alpha": 0.4}, None, None),
        "softplus": ("Softplus", 13, {}, 1.0 / 64, -128),
        "softsign": ("Softsign", 13, {}, 1.0 / 128, 0),
        "mish": ("Mish", 18, {}, None, None),
        "gelu": ("Gelu", 20, {}, None, None),
        "gelu_tanh": ("Gelu", 20, {"approximate": "tanh"}, None, None),
        "exp": ("Exp", 13, {}, 0.1, -128),
        "log": ("Log", 13, {}, 0.05, 100),
        "sqrt": ("Sqrt", 13, {}, 1.0 / 128, -128),
        "reciprocal": ("Reciprocal", 13, {}, 0.25, -128),
        "abs": ("Abs", 13, {}, None, -128),
        "neg": ("Neg", 13, {}, None, None),
        "erf": ("Erf", 13, {}, 1.0 / 128, 0),
        "sin": ("Sin", 13, {}, 1.0 / 128, 0),
        "cos": ("Cos", 13, {}, 1.0 / 128, 0),
        "floor": ("Floor", 13, {}, 0.05, None),
        "ceil": ("Ceil", 13, {}, 0.05, None),
        "round": ("Round", 13, {}, 0.05, None),
        "sign": ("Sign", 13, {}, 1.0 / 64, None),
    }
    for name, (op, opset, attrs, scale, zp) in cases.items():
        g = Qdq("qdq_table_" + name, [1, 8, 6, 6], opset=opset,
                ir_version=9 if opset >= 18 else 7)
        x = g.conv(g.x, 8, 8, 3, activation="relu" if op in relu else None)
        g.save(out_dir, g.op(op, [x], scale=scale, zp=zp, **attrs), scale or g.scale,
               [1, 8, 6, 6])

    g = Qdq("qdq_squeeze_excite", [1, 8, 6, 6])
    x = g.conv(g.x, 8, 16, 3, activation="relu")
    s = g.op("GlobalAveragePool", [x])
    s = g.conv(s, 16, 8, 1, activation="relu")
    s = g.conv(s, 8, 16, 1)
    gate = g.op("HardSigmoid", [s], scale=1.0 / 255, zp=-128, alpha=1.0 / 6, beta=0.5)
    g.save(out_dir, g.op("Mul", [x, gate]), g.scale, [1, 16, 6, 6])


def log_softmax(out_dir):
    """A classifier head over a batch of 8, Gemm then LogSoftmax over the classes: quantized as
    TFLite's int8 kernel writes it (scale 16/256, zero point 127), as a calibration would (a
    coarser step: requantized after it), at opset 11 (axis 1 of [8, 10]) and 18, and with uint8
    activations."""
    cases = {
        "qdq_log_softmax": (13, False, 16.0 / 256, 127, -1),
        "qdq_log_softmax_requantized": (11, False, 0.07, 127, 1),
        "qdq_log_softmax_uint8_opset18": (18, True, 0.09, 255, -1),
    }
    for name, (opset, uint8, scale, zp, axis) in cases.items():
        g = Qdq(name, [8, 24], uint8=uint8, opset=opset, ir_version=9 if opset >= 18 else 7)
        w, ws = g.weights((10, 24), 24, per_channel=False)
        b = g.bias(10, np.full(10, ws, np.float32))
        x = g.op("Gemm", [g.x, w, b], scale=0.05, transB=1)
        x = g.op("LogSoftmax", [x], scale=scale, zp=zp, axis=axis)
        g.save(out_dir, x, scale, [8, 10])


def float_heads(out_dir):
    """Classifiers whose results come out in float: Gemm, its DequantizeLinear, then a float
    Softmax, Sigmoid or Tanh as the graph's output (PyTorch's F.softmax after DeQuantStub).
    Compared in steps of the int16 kernel Mote runs: softmax's 1/65536; two of the sigmoid and
    tanh's 2^-15, which TFLite's interpolated tables stay within."""
    for name, op, step in (("qdq_float_softmax", "Softmax", 1.0 / 65536),
                           ("qdq_float_sigmoid", "Sigmoid", 2.0 / 32768),
                           ("qdq_float_tanh", "Tanh", 2.0 / 32768)):
        g = Qdq(name, [8, 24])
        w, ws = g.weights((10, 24), 24, per_channel=False)
        x = g.op("Gemm", [g.x, w, g.bias(10, np.full(10, ws, np.float32))], scale=0.05, transB=1)
        y = g.fresh(op.lower())
        g.nodes.append(helper.make_node(op, [x], [y]))
        g.save(out_dir, y, step, [8, 10])
    # Segmentation maps in float, [1, 5, 6, 6]: a Sigmoid's (int16, moved to NCHW) and a Softmax
    # over the channels' (int8 at 1/256: an int16 of zero point -32768 does not move).
    for name, op, step in (("qdq_float_sigmoid_map", "Sigmoid", 2.0 / 32768),
                           ("qdq_float_softmax_map", "Softmax", 1.0 / 256)):
        g = Qdq(name, [1, 3, 6, 6])
        y = g.fresh(op.lower())
        attrs = {"axis": 1} if op == "Softmax" else {}
        g.nodes.append(helper.make_node(op, [g.conv(g.x, 3, 5, 3)], [y], **attrs))
        g.save(out_dir, y, step, [1, 5, 6, 6])


def field_operators(out_dir):
    """Operators quantized exports from the field add: Slice (steps, a reversal), Split (equal
    and not, the sizes an input from opset 13 and an attribute before, opset 18's num_outputs
    with a smaller last part), Gather by constant
    indices (channels; a scalar index dropping a dimension), Max and Min (operands requantized to
    the output's scale; a constant operand), ReduceMax, ReduceSum (the axes an input from opset 13,
    an attribute before), GlobalMaxPool (requantized), DepthToSpace
    (DCR and CRD orders) and SpaceToDepth, Softmax over the channels (axis 1 of NCHW), Pad with
    opset 18's axes, and shape arithmetic folded into a Reshape's shape
    (Shape, Gather, Unsqueeze, Concat as older torch exports write flatten)."""
    def slice_(g, x):
        starts = g.const(np.array([2, 1, -1], np.int64), "starts")
        ends = g.const(np.array([8, -1, np.iinfo(np.int64).min], np.int64), "ends")
        axes = g.const(np.array([1, 2, 3], np.int64), "axes")
        steps = g.const(np.array([2, 1, -1], np.int64), "steps")
        return g.op("Slice", [x, starts, ends, axes, steps])

    def split(sizes, attribute):
        def build(g, x):
            parts = [g.fresh("split") for _ in range(len(sizes) if sizes else 2)]
            if attribute:
                attrs = {"split": sizes} if sizes else {}
                g.nodes.append(helper.make_node("Split", [x], parts, axis=1, **attrs))
            else:
                inputs = [x, g.const(np.array(sizes, np.int64), "split")] if sizes else [x]
                g.nodes.append(helper.make_node("Split", inputs, parts, axis=1))
            quantized = [g.quantize(p, g.scale) for p in parts]
            return g.op("Concat", quantized[::-1], axis=1)  # reversed: each part must be its own
        return build

    def gather(indices, axis):
        def build(g, x):
            return g.op("Gather", [x, g.const(np.array(indices, np.int64), "indices")], axis=axis)
        return build

    def max_of_branches(g, x):
        return g.op("Max", [x, g.x], scale=0.031)

    def min_constant(g, x):
        c = g.const(np.array([[[0.3]], [[-0.2]], [[0.1]], [[0.5]], [[0.0]], [[0.2]], [[-0.1]],
                              [[0.4]]], np.float32), "bound")
        return g.op("Min", [x, g.quantize(c, g.scale)])

    def reduce_max(keepdims, axes):
        def build(g, x):
            if g.opset >= 18:  # the axes an input
                return g.op("ReduceMax", [x, g.const(np.array(axes, np.int64), "axes")],
                            keepdims=keepdims)
            return g.op("ReduceMax", [x], axes=axes, keepdims=keepdims)
        return build

    def pad_axes(g, x):  # opset 18: the pads of the listed axes only
        pads = g.const(np.array([1, 2, 1, 0], np.int64), "pads")
        axes = g.const(np.array([2, -1], np.int64), "axes")
        return g.op("Pad", [x, pads, "", axes])

    def split_num_outputs(g, x):  # opset 18: num_outputs, the last part the smaller
        parts = [g.fresh("split") for _ in range(3)]
        g.nodes.append(helper.make_node("Split", [x], parts, axis=1, num_outputs=3))
        return g.op("Concat", [g.quantize(p, g.scale) for p in parts][::-1], axis=1)

    def flatten_by_shape(opset_13):
        def build(g, x):
            shape, batch, lead = g.fresh("shape"), g.fresh("gather"), g.fresh("unsqueeze")
            g.nodes.append(helper.make_node("Shape", [x], [shape]))
            zero = g.const(np.array(0, np.int64), "zero")
            g.nodes.append(helper.make_node("Gather", [shape, zero], [batch], axis=0))
            if opset_13:
                axes = g.const(np.array([0], np.int64), "axes")
                g.nodes.append(helper.make_node("Unsqueeze", [batch, axes], [lead]))
            else:
                g.nodes.append(helper.make_node("Unsqueeze", [batch], [lead], axes=[0]))
            rest = g.const(np.array([-1], np.int64), "rest")
            target = g.fresh("concat")
            g.nodes.append(helper.make_node("Concat", [lead, rest], [target], axis=0))
            flat = g.op("Reshape", [x, target])
            w, ws = g.weights((5, 8 * 6 * 6), 8 * 6 * 6, per_channel=False)
            return g.op("Gemm", [flat, w, g.bias(5, np.full(5, ws, np.float32))], transB=1)
        return build

    def tile_constant(g, x):
        # tf2onnx's form: a constant tiled by multiples computed from the activation's shape.
        shape, lead, lead64, multiples, tiled = (g.fresh(n) for n in
                                                 ["shape", "slice", "cast", "concat", "tile"])
        g.nodes.append(helper.make_node("Shape", [x], [shape]))
        g.nodes.append(helper.make_node("Slice", [shape, g.const(np.array([0], np.int64), "s"),
                                                  g.const(np.array([1], np.int64), "e")], [lead]))
        g.nodes.append(helper.make_node("Cast", [lead], [lead64], to=TensorProto.INT64))
        g.nodes.append(helper.make_node("Concat", [lead64, g.const(np.array([8, 6, 1], np.int64),
                                                                   "m")], [multiples], axis=0))
        row = g.const(g.rng.integers(-40, 40, (1, 1, 1, 6)).astype(np.int8), "row")
        g.nodes.append(helper.make_node("Tile", [row, multiples], [tiled]))
        s, z = g.qparams(g.scale)
        d = g.fresh("dq")
        g.nodes.append(helper.make_node("DequantizeLinear", [tiled, s, z], [d]))
        return g.op("Add", [x, d])

    cases = {
        "slice": (slice_, 13, [1, 3, 4, 6]),
        "tile_constant": (tile_constant, 13, [1, 8, 6, 6]),
        "split_input": (split([3, 5], False), 13, [1, 8, 6, 6]),
        "split_equal": (split(None, False), 13, [1, 8, 6, 6]),
        "split_attribute": (split([4, 4], True), 11, [1, 8, 6, 6]),
        "gather_channels": (gather([5, 0, -2], 1), 13, [1, 3, 6, 6]),
        "gather_row": (gather(2, 2), 13, [1, 8, 6]),
        "max": (max_of_branches, 13, [1, 8, 6, 6]),
        "min_constant": (min_constant, 13, [1, 8, 6, 6]),
        "reducemax": (reduce_max(1, [2, 3]), 13, [1, 8, 1, 1]),
        "reducemax_channels": (reduce_max(0, [1]), 13, [1, 6, 6]),
        "reducemax_opset18": (reduce_max(0, [2]), 18, [1, 8, 6]),
        "split_opset18": (split_num_outputs, 18, [1, 8, 6, 6]),
        "pad_opset18_axes": (pad_axes, 18, [1, 8, 8, 8]),
        "shape_flatten_opset11": (flatten_by_shape(False), 11, [1, 5]),
        "shape_flatten": (flatten_by_shape(True), 13, [1, 5]),
        "global_max_pool": (lambda g, x: g.op("GlobalMaxPool", [x], scale=0.031), 13, [1, 8, 1, 1]),
        "reducesum": (lambda g, x: g.op("ReduceSum", [x, g.const(np.array([2, 3], np.int64), "axes")],
                                        scale=0.4, keepdims=1), 13, [1, 8, 1, 1]),
        "reducesum_opset11": (lambda g, x: g.op("ReduceSum", [x], scale=0.4, axes=[1], keepdims=0),
                              11, [1, 6, 6]),
        "depth_to_space": (lambda g, x: g.op("DepthToSpace", [x], blocksize=2), 13, [1, 2, 12, 12]),
        "depth_to_space_crd": (lambda g, x: g.op("DepthToSpace", [x], blocksize=2, mode="CRD"),
                               13, [1, 2, 12, 12]),
        "space_to_depth": (lambda g, x: g.op("SpaceToDepth", [x], blocksize=3), 13, [1, 72, 2, 2]),
        # A segmentation head's per-pixel class probabilities: Softmax over NCHW's channels.
        "softmax_channels": (lambda g, x: g.op("Softmax", [x], scale=1 / 256, zp=-128, axis=1),
                             13, [1, 8, 6, 6]),
    }
    for name, (build, opset, shape) in cases.items():
        g = Qdq("qdq_op_" + name, [1, 8, 6, 6], opset=opset, ir_version=9 if opset >= 18 else 7)
        x = build(g, g.conv(g.x, 8, 8, 3, per_channel=opset >= 13))  # per axis from opset 13
        scale = {"max": 0.031, "global_max_pool": 0.031, "reducesum": 0.4, "reducesum_opset11": 0.4,
                 "softmax_channels": 1 / 256}
        g.save(out_dir, x, scale.get(name, g.scale), shape)


def max_pool_pads(out_dir):
    """Max pools whose padding TFLite's SAME does not give, after a Relu quantized from 0 (a
    uint8 zero point 0 is int8's -128, the lowest value): ResNet's stem (kernel 3, stride 2,
    pads 1 all round) and a ceil_mode 1 one (PyTorch's ceil_mode=True), each padded with that
    lowest value, which never wins, then VALID."""
    cases = {
        "qdq_maxpool_stem": (dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]), [1, 8, 4, 4]),
        "qdq_maxpool_ceil": (dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1),
                             [1, 8, 5, 5]),
    }
    for name, (attrs, shape) in cases.items():
        g = Qdq(name, [1, 3, 8, 8])
        x = g.op("Relu", [g.conv(g.x, 3, 8, 3)], scale=0.02, zp=-128)
        g.save(out_dir, g.op("MaxPool", [x], scale=0.02, zp=-128, **attrs), 0.02, shape)


def constant_arithmetic(out_dir):
    """Arithmetic with a constant of one value between a DequantizeLinear and a QuantizeLinear,
    as PyTorch exports x * 0.5 or x / 6 (the constant a plain float, not quantized): Add, Sub
    (either side), Mul, Div (either side, the divisor also a dequantized constant) and Pow, each
    a table of ONNX's float32 arithmetic."""
    def plain(g, value, shape=()):
        return g.const(np.full(shape, value, np.float32), "c")

    def chain(g, x):
        x = g.op("Mul", [x, plain(g, 0.5)], scale=0.02)
        x = g.op("Add", [plain(g, 0.25, [1, 1, 1]), x], scale=0.02)  # broadcast from the left
        x = g.op("Sub", [x, plain(g, 0.125)], scale=0.02)
        x = g.op("Sub", [plain(g, 1.5, [1]), x], scale=0.02)
        return g.op("Div", [x, plain(g, 6.0)], scale=0.005)

    def dequantized_divisor(g, x):
        q = g.const(np.array(40, np.int8), "c")
        s, z = g.qparams(0.05)
        d = g.fresh("dq")
        g.nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [d]))
        return g.op("Div", [d, g.op("Relu", [x], scale=0.02)], scale=0.5)  # 2 / x: saturates near 0

    cases = {  # the graph, and its output's scale
        "qdq_const_arithmetic": (chain, 0.005),
        "qdq_const_div": (dequantized_divisor, 0.5),
        "qdq_const_pow": (lambda g, x: g.op("Pow", [x, plain(g, 2.0)], scale=0.05), 0.05),
    }
    for name, (build, scale) in cases.items():
        g = Qdq(name, [1, 3, 6, 6])
        g.save(out_dir, build(g, g.conv(g.x, 3, 4, 3)), scale, [1, 4, 6, 6])


def arg_max(out_dir):
    """ArgMax and ArgMin, int64 indices out: a segmentation head (class logits upsampled by a
    linear Resize, ArgMax over the channels, keepdims), ArgMin without keepdims at opset 11
    (before select_last_index), and ArgMax over the width (the NHWC logits laid out in ONNX's
    order first: no int64 transpose)."""
    def segmentation(g, x):
        x = g.op("Resize", [x, "", g.const(np.array([1, 1, 2, 2], np.float32), "scales")],
                 mode="linear", coordinate_transformation_mode="half_pixel")
        return g.op_int64("ArgMax", [x], axis=1, keepdims=1)

    cases = {
        "qdq_argmax_segmentation": (segmentation, 13, [1, 1, 12, 12]),
        "qdq_argmin_opset11": (lambda g, x: g.op_int64("ArgMin", [x], axis=1, keepdims=0), 11,
                               [1, 6, 6]),
        "qdq_argmax_width": (lambda g, x: g.op_int64("ArgMax", [x], axis=-1, keepdims=0), 13,
                             [1, 5, 6]),
    }
    for name, (build, opset, shape) in cases.items():
        g = Qdq(name, [1, 3, 6, 6], opset=opset)
        x = build(g, g.conv(g.x, 3, 5, 3, per_channel=opset >= 13))
        g.save(out_dir, x, 0, shape, indices=True)


def conv1d(out_dir):
    """Audio-style 1-D layers on [N, C, L]: (qdq_conv1d) Conv1d with Relu, a depthwise Conv1d of
    stride 2, MaxPool1d, a pointwise Conv1d and a residual Add, global pooling and Gemm;
    (qdq_conv1d_sequence) Conv1d then AveragePool1d, the [N, C, L] sequence itself the output.
    Two models: a longer chain would pile up the one-step differences of TFLite's rounding."""
    for name in ["qdq_conv1d", "qdq_conv1d_sequence"]:
        g = Qdq(name, [1, 4, 32])

        def conv(x, cin, cout, k, stride=1, group=1, activation=None):
            w, ws = g.weights((cout, cin // group, k), cin // group * k)
            return g.op("Conv", [x, w, g.bias(cout, ws)], activation=activation,
                        kernel_shape=[k], strides=[stride], pads=[k // 2, k // 2], group=group)
        x = conv(g.x, 4, 8, 3, activation="relu")
        if name == "qdq_conv1d_sequence":
            x = g.op("AveragePool", [x], kernel_shape=[3], strides=[1], pads=[1, 1],
                     count_include_pad=0)
            g.save(out_dir, x, g.scale, [1, 8, 32])
            continue
        x = conv(x, 8, 8, 3, stride=2, group=8, activation="relu")
        x = g.op("MaxPool", [x], kernel_shape=[2], strides=[2])
        x = g.op("Add", [x, conv(x, 8, 8, 1)])
        x = g.op("GlobalAveragePool", [x])
        x = g.op("Flatten", [x], axis=1)
        w, ws = g.weights((5, 8), 8, per_channel=False)
        x = g.op("Gemm", [x, w, g.bias(5, np.full(5, ws, np.float32))], transB=1)
        g.save(out_dir, x, g.scale, [1, 5])


def conv_transpose(out_dir):
    """ConvTranspose as TRANSPOSE_CONV: kernel 4 stride 2 pads 1 (TFLite's SAME), kernel 2
    stride 2 (VALID), kernel 3 stride 2 pads 1 output_padding 1 (PyTorch's usual upsampler: a
    VALID result cropped), 1-D kernel 4 stride 2 pads 1, kernel 4 stride 2 auto_pad SAME_UPPER;
    weights [Ci, Co, k..] per channel on axis 1."""
    cases = {
        "same": ([1, 8, 6, 6], 4, 2, [1, 1, 1, 1], [0, 0], [1, 6, 12, 12]),
        "valid": ([1, 8, 6, 6], 2, 2, [0, 0, 0, 0], [0, 0], [1, 6, 12, 12]),
        "crop": ([1, 8, 6, 6], 3, 2, [1, 1, 1, 1], [1, 1], [1, 6, 12, 12]),
        "1d": ([1, 8, 10], 4, 2, [1, 1], [0], [1, 6, 20]),
        "auto_pad": ([1, 8, 6, 6], 4, 2, None, [0, 0], [1, 6, 12, 12]),  # SAME_UPPER: pads 1
    }
    for name, (shape, k, stride, pads, extra, out_shape) in cases.items():
        g = Qdq("qdq_convtranspose_" + name, shape)
        spatial = len(shape) - 2
        wshape = (8, 6) + (k,) * spatial
        w = g.rng.uniform(-1, 1, wshape).astype(np.float32) * np.float32(np.sqrt(3.0 / (8 * k)))
        scales = (np.abs(w).transpose(1, 0, *range(2, 2 + spatial)).reshape(6, -1).max(axis=1)
                  / 127).astype(np.float32)
        q = np.clip(np.round(w / scales.reshape((1, 6) + (1,) * spatial)), -127, 127)
        wq = g.fresh("w_dq")
        g.nodes.append(helper.make_node(
            "DequantizeLinear", [g.const(q.astype(np.int8), "w"), g.const(scales, "w_scale"),
                                 g.const(np.zeros(6, np.int8), "w_zp")], [wq], axis=1))
        padding = {"pads": pads} if pads is not None else {"auto_pad": "SAME_UPPER"}
        x = g.op("ConvTranspose", [g.x, wq, g.bias(6, scales)], activation="relu",
                 kernel_shape=[k] * spatial, strides=[stride] * spatial, output_padding=extra,
                 **padding)
        g.save(out_dir, x, g.scale, out_shape)


class QOperator(Qdq):
    """ONNX Runtime's QOperator form: QLinearConv, QLinearMatMul and com.microsoft's QLinearAdd,
    QLinearGlobalAveragePool, QGemm, QLinearSoftmax on uint8 activations; byte-moving operators (MaxPool,
    Flatten) straight on the quantized tensors."""

    def __init__(self, name, shape):
        super().__init__(name, shape, uint8=True)
        self.nodes.clear()
        self.inits.clear()
        s, z = self.qparams(self.scale)
        self.x = self.fresh("q")
        self.nodes.append(helper.make_node("QuantizeLinear", ["input", s, z], [self.x]))

    def qweights(self, shape, fan_in):
        w = self.rng.uniform(-1, 1, shape).astype(np.float32) * np.float32(np.sqrt(3.0 / fan_in))
        scales = (np.abs(w).reshape(shape[0], -1).max(axis=1) / 127).astype(np.float32)
        q = np.clip(np.round(w / scales.reshape((-1,) + (1,) * (len(shape) - 1))), -127, 127)
        return (self.const(q.astype(np.int8), "w"), self.const(scales, "w_scale"),
                self.const(np.zeros(shape[0], np.int8), "w_zp"), scales)

    def qop(self, op_type, inputs, domain=None, **attrs):
        y = self.fresh(op_type.lower())
        kw = {"domain": domain} if domain else {}
        self.nodes.append(helper.make_node(op_type, inputs, [y], **kw, **attrs))
        return y

    def qconv(self, x, cin, cout, k, stride=1, group=1):
        xs, xz = self.qparams(self.scale)
        w, ws, wz, scales = self.qweights((cout, cin // group, k, k), cin // group * k * k)
        b = self.const(self.rng.integers(-2000, 2000, cout).astype(np.int32), "b")
        ys, yz = self.qparams(self.scale)
        return self.qop("QLinearConv", [x, xs, xz, w, ws, wz, ys, yz, b], kernel_shape=[k, k],
                        strides=[stride, stride], pads=[k // 2] * 4, group=group)

    def qbinary(self, op_type, a, b):
        sa, za = self.qparams(self.scale)
        sb, zb = self.qparams(self.scale)
        sy, zy = self.qparams(self.scale)
        return self.qop(op_type, [a, sa, za, b, sb, zb, sy, zy], domain="com.microsoft")

    def save_q(self, out_dir, y, output_shape, output_scale=None, output_zp=None):
        """y's DequantizeLinear the output; y quantized by output_scale and output_zp (the
        graph's scale and zero point unless given)."""
        scale = self.scale if output_scale is None else output_scale
        s, z = self.qparams(scale, output_zp)
        d = self.fresh("dq")
        self.nodes.append(helper.make_node("DequantizeLinear", [y, s, z], [d]))
        self.save(out_dir, d, scale, output_shape)


def qoperator(out_dir):
    g = QOperator("qop_cnn", [1, 3, 12, 12])
    x = g.qconv(g.x, 3, 8, 3)
    x = g.qop("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    y = g.qconv(x, 8, 8, 3, group=8)
    x = g.qbinary("QLinearAdd", x, y)
    x = g.qbinary("QLinearMul", x, x)
    xs, xz = g.qparams(g.scale)
    ys, yz = g.qparams(g.scale)
    p = g.qop("QLinearGlobalAveragePool", [x, xs, xz, ys, yz], domain="com.microsoft",
              channels_last=0)
    p = g.qop("Flatten", [p], axis=1)
    w, ws, wz, scales = g.qweights((10, 8), 8)
    b = g.const(g.rng.integers(-2000, 2000, 10).astype(np.int32), "b")
    ps, pz = g.qparams(g.scale)
    ys, yz = g.qparams(g.scale)
    y = g.qop("QGemm", [p, ps, pz, w, ws, wz, b, ys, yz], domain="com.microsoft", transB=1)
    ws2, wz2 = g.const(np.array(0.02, np.float32), "w_scale"), g.const(np.array(0, np.int8), "w_zp")
    w2 = g.const(g.rng.integers(-100, 100, (10, 6)).astype(np.int8), "w")
    ys2, yz2 = g.qparams(g.scale)
    ys1, yz1 = g.qparams(g.scale)
    y = g.qop("QLinearMatMul", [y, ys1, yz1, w2, ws2, wz2, ys2, yz2])
    g.save_q(out_dir, y, [1, 6])


def qoperator_pad(out_dir):
    """ONNX Runtime's QOperator Pad: the uint8 tensor padded with its zero point (the real 0) as
    the constant value, between two QLinearConvs."""
    g = QOperator("qop_pad", [1, 3, 8, 8])
    x = g.qconv(g.x, 3, 8, 3)
    pads = g.const(np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64), "pads")
    value = g.const(np.array(g.zp, np.uint8), "pad_value")
    x = g.qop("Pad", [x, pads, value], mode="constant")
    g.save_q(out_dir, g.qconv(x, 8, 4, 3), [1, 4, 11, 11])


def qoperator_argmax(out_dir):
    """The QOperator form's ArgMax: a QLinearConv's uint8 class logits read as they are (no
    DequantizeLinear), int64 indices."""
    g = QOperator("qop_argmax", [1, 3, 8, 8])
    x = g.qconv(g.x, 3, 5, 3)
    g.save(out_dir, g.qop("ArgMax", [x], axis=1, keepdims=1), 0, [1, 1, 8, 8], indices=True)


def qoperator_softmax(out_dir):
    """QGemm then ONNX Runtime's QLinearSoftmax (com.microsoft) over a batch of 4 rows, with
    Softmax's meaning at opset 13 (the last axis) and at opset 11 (axis 1 of [4, 10])."""
    for name, semantics, axis in (("qop_softmax", 13, -1), ("qop_softmax_opset11", 11, 1)):
        g = QOperator(name, [4, 16])
        w, ws, wz, _ = g.qweights((10, 16), 16)
        b = g.const(g.rng.integers(-2000, 2000, 10).astype(np.int32), "b")
        xs, xz = g.qparams(g.scale)
        ys, yz = g.qparams(0.1)
        y = g.qop("QGemm", [g.x, xs, xz, w, ws, wz, b, ys, yz], domain="com.microsoft", transB=1)
        ss, sz = g.qparams(1.0 / 256, 0)
        y = g.qop("QLinearSoftmax", [y, ys, yz, ss, sz], domain="com.microsoft", axis=axis,
                  opset=semantics)
        g.save_q(out_dir, y, [4, 10], output_scale=1.0 / 256, output_zp=0)


def uint8_io(out_dir):
    """A camera-style model: a uint8 graph input read by its DequantizeLinear (no float input)
    and a uint8 graph output (the last QuantizeLinear's, no DequantizeLinear), the program
    taking and giving the bytes as the model declares them."""
    g = Qdq("qdq_uint8_io", [1, 3, 8, 8], uint8=True)
    g.nodes.clear()
    g.inits.clear()
    s, z = g.qparams(1.0 / 255, 0)
    x = g.fresh("dq")
    g.nodes.append(helper.make_node("DequantizeLinear", ["input", s, z], [x]))
    g.scale = 1.0 / 255  # the convolution's input scale, for its bias
    w, ws = g.weights((8, 3, 3, 3), 27)
    conv, relu = g.fresh("conv"), g.fresh("relu")
    g.nodes.append(helper.make_node("Conv", [x, w, g.bias(8, ws)], [conv], kernel_shape=[3, 3],
                                    strides=[2, 2], pads=[1, 1, 1, 1]))
    g.nodes.append(helper.make_node("Relu", [conv], [relu]))
    ys, yz = g.qparams(0.05, 3)
    g.nodes.append(helper.make_node("QuantizeLinear", [relu, ys, yz], ["output"]))
    graph = helper.make_graph(
        g.nodes, g.name, [helper.make_tensor_value_info("input", TensorProto.UINT8, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("output", TensorProto.UINT8, [1, 8, 4, 4])], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="mote-tests")
    model.ir_version = 7
    onnx.save(model, os.path.join(out_dir, g.name + ".onnx"))
    with open(os.path.join(out_dir, g.name + ".json"), "w") as f:
        json.dump({"input_shape": [1, 3, 8, 8], "input_type": "uint8", "output_type": "uint8",
                   "output_scale": 1}, f)


def nhwc_input(out_dir):
    """tf2onnx's form: an NHWC float input transposed to NCHW before its QuantizeLinear (the
    reader folds the transpose: the convolution reads the input as it is)."""
    g = Qdq("qdq_nhwc_input", [1, 8, 8, 3], first=("Transpose", {"perm": [0, 3, 1, 2]}))
    x = g.conv(g.x, 3, 8, 3, activation="relu")
    x = g.op("GlobalAveragePool", [x])
    g.save(out_dir, x, g.scale, [1, 8, 1, 1])
    with open(os.path.join(out_dir, "qdq_nhwc_input.json")) as f:
        meta = json.load(f)
    meta["transposes"] = 0
    with open(os.path.join(out_dir, "qdq_nhwc_input.json"), "w") as f:
        json.dump(meta, f)


def rnn_weights(rng, directions, rows, cols):
    """Float weights as quantize_static leaves an LSTM's or GRU's: uniform in +-1/sqrt(cols)."""
    return (rng.uniform(-1, 1, (directions, rows, cols)) / np.sqrt(cols)).astype(np.float32)


def layout0_twin(path):
    """ONNX Runtime refuses layout 1 (batch first): what it runs instead is the same graph with
    each such LSTM or GRU in layout 0 between float Transposes, as ONNX defines layout 1
    (X [B, T, I], Y [B, T, D, H], the states [B, D, H]). Writes NAME.layout0.onnx; returns its
    file name."""
    model = onnx.load(path)
    nodes = []
    for n in model.graph.node:
        layout = [a for a in n.attribute if a.name == "layout"]
        if n.op_type not in ("LSTM", "GRU") or not layout or layout[0].i == 0:
            nodes.append(n)
            continue
        n.attribute.remove(layout[0])
        inputs = list(n.input)
        for k in (0, 5, 6):  # X, initial_h, initial_c: batch rows to the second dimension
            if k < len(inputs) and inputs[k]:
                nodes.append(helper.make_node("Transpose", [inputs[k]], [inputs[k] + "/layout0"],
                                              perm=[1, 0, 2]))
                inputs[k] += "/layout0"
        outputs = list(n.output)
        n.ClearField("input")
        n.input.extend(inputs)
        n.ClearField("output")
        n.output.extend(o + "/layout0" if o else "" for o in outputs)
        nodes.append(n)
        for k, o in enumerate(outputs):  # Y [T, D, B, H] -> [B, T, D, H]; the states [D, B, H]
            if o:
                nodes.append(helper.make_node("Transpose", [o + "/layout0"], [o],
                                              perm=[2, 0, 1, 3] if k == 0 else [1, 0, 2]))
    model.graph.ClearField("node")
    model.graph.node.extend(nodes)
    twin = os.path.splitext(path)[0] + ".layout0.onnx"
    onnx.save(model, twin)
    return os.path.basename(twin)


def mark_layout1(out_dir, name):
    """NAME.json: ONNX Runtime runs the layout-0 twin, and the program holds no TRANSPOSE."""
    with open(os.path.join(out_dir, name + ".json")) as f:
        meta = json.load(f)
    meta["reference"] = layout0_twin(os.path.join(out_dir, name + ".onnx"))
    meta["transposes"] = 0
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump(meta, f)


def recurrent(out_dir, name, cell, direction="forward", linear_before_reset=None,
              dequantized_weights=False, initial_h=False, peephole=False, layout=0):
    """A recurrent layer between quantized ones, as quantize_static leaves it: a [6, 8] sequence
    through a quantized MatMul, reshaped to [6, 1, 8], an LSTM or GRU in float (float W, R and B;
    or, as some exports write, int8 W and R behind DequantizeLinear) whose Y a QuantizeLinear
    quantizes, reshaped to [6, D*H] and a quantized MatMul. uint8 activations (ONNX Runtime's
    default). Optionally a constant initial_h and (LSTM) peepholes; layout 1 (opset 14): the
    batch of one first, [1, 6, 8] and Y [1, 6, D, H]."""
    g = Qdq(name, [6, 8], uint8=True, opset=14 if layout else 13)
    w, _ = g.weights((8, 8), 8, per_channel=False)
    x = g.op("MatMul", [g.x, w])
    x = g.op("Reshape", [x, g.const(np.array([1, 6, 8] if layout else [6, 1, 8], np.int64),
                                    "shape")])
    hidden, gates = 12, 4 if cell == "LSTM" else 3
    d = 2 if direction == "bidirectional" else 1
    inputs = [x]
    for rows, cols in ((gates * hidden, 8), (gates * hidden, hidden)):
        weights = rnn_weights(g.rng, d, rows, cols)
        if dequantized_weights:
            scale = np.float32(np.abs(weights).max() / 127)
            q = np.clip(np.round(weights / scale), -127, 127).astype(np.int8)
            dq = g.fresh("rnn_w_dq")
            g.nodes.append(helper.make_node(
                "DequantizeLinear", [g.const(q, "rnn_w"), g.const(np.array(scale), "rnn_w_scale"),
                                     g.const(np.array(0, np.int8), "rnn_w_zp")], [dq]))
            inputs.append(dq)
        else:
            inputs.append(g.const(weights, "rnn_w"))
    inputs.append(g.const((g.rng.uniform(-0.5, 0.5, (d, 2 * gates * hidden))).astype(np.float32),
                          "rnn_b"))
    if initial_h:
        h0 = g.rng.uniform(-0.5, 0.5, (d, 1, hidden)).astype(np.float32)
        inputs += ["", g.const(h0.transpose(1, 0, 2) if layout else h0, "h0")]
    if peephole:
        inputs += [""] * (7 - len(inputs))
        inputs.append(g.const(g.rng.uniform(-0.5, 0.5, (d, 3 * hidden)).astype(np.float32), "p"))
    attrs = {"hidden_size": hidden, "direction": direction}
    if linear_before_reset is not None:
        attrs["linear_before_reset"] = linear_before_reset
    if layout:
        attrs["layout"] = layout
    y = g.fresh(cell.lower())
    g.nodes.append(helper.make_node(cell, inputs, [y], **attrs))
    x = g.quantize(y, 1.0 / 128)
    g.scale = 1.0 / 128
    x = g.op("Reshape", [x, g.const(np.array([6, d * hidden], np.int64), "shape")])
    w, _ = g.weights((d * hidden, 4), d * hidden, per_channel=False)
    g.scale = 0.02
    x = g.op("MatMul", [x, w])
    g.save(out_dir, x, g.scale, [6, 4])
    if layout:
        mark_layout1(out_dir, name)


def recurrent_streaming(out_dir):
    """A streaming LSTM: X, initial_h (quantized, through QuantizeLinear and DequantizeLinear)
    and initial_c (float) are graph inputs; Y (quantized), Y_h and Y_c (float) graph outputs, the
    state a caller carries from one chunk to the next."""
    g = Qdq("qdq_lstm_streaming", [4, 1, 8], uint8=True)
    hidden = 10
    h0 = g.quantize("initial_h", 1.0 / 128)
    lstm_inputs = [g.x, g.const(rnn_weights(g.rng, 1, 4 * hidden, 8), "w"),
                   g.const(rnn_weights(g.rng, 1, 4 * hidden, hidden), "r"),
                   g.const(g.rng.uniform(-0.5, 0.5, (1, 8 * hidden)).astype(np.float32), "b"),
                   "", h0, "initial_c"]
    g.nodes.append(helper.make_node("LSTM", lstm_inputs, ["y", "state_h", "state_c"],
                                    hidden_size=hidden))
    y = g.quantize("y", 1.0 / 128)
    g.nodes.append(helper.make_node("Identity", [y], ["output"]))
    state = [1, 1, hidden]
    graph = helper.make_graph(
        g.nodes, g.name,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, g.input_shape),
         helper.make_tensor_value_info("initial_h", TensorProto.FLOAT, state),
         helper.make_tensor_value_info("initial_c", TensorProto.FLOAT, state)],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [4, 1, 1, hidden]),
         helper.make_tensor_value_info("state_h", TensorProto.FLOAT, state),
         helper.make_tensor_value_info("state_c", TensorProto.FLOAT, state)], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="mote-tests")
    model.ir_version = 7
    onnx.save(model, os.path.join(out_dir, g.name + ".onnx"))
    # Float outputs: within float rounding of ONNX Runtime's (1e-4), as its step.
    with open(os.path.join(out_dir, g.name + ".json"), "w") as f:
        json.dump({"inputs": [{"shape": g.input_shape, "range": [-1.0, 1.0]},
                              {"shape": state, "range": [-0.9, 0.9]},
                              {"shape": state, "range": [-2.0, 2.0]}],
                   "outputs": [{"count": 4 * hidden, "scale": 1.0 / 128},
                               {"count": hidden, "scale": 1e-4},
                               {"count": hidden, "scale": 1e-4}]}, f)


def recurrent_batch(out_dir):
    """A bidirectional GRU over a batch of two sequences, straight from the quantized input, its
    Y and its final state Y_h each quantized by their own QuantizeLinear, both graph outputs."""
    g = Qdq("qdq_gru_batch2", [5, 2, 6], uint8=True)
    hidden = 7
    inputs = [g.x, g.const(rnn_weights(g.rng, 2, 3 * hidden, 6), "w"),
              g.const(rnn_weights(g.rng, 2, 3 * hidden, hidden), "r"),
              g.const(g.rng.uniform(-0.5, 0.5, (2, 6 * hidden)).astype(np.float32), "b")]
    g.nodes.append(helper.make_node("GRU", inputs, ["y", "y_h"], hidden_size=hidden,
                                    direction="bidirectional"))
    g.nodes.append(helper.make_node("Identity", [g.quantize("y", 1.0 / 128)], ["output"]))
    g.nodes.append(helper.make_node("Identity", [g.quantize("y_h", 1.0 / 64)], ["state"]))
    state = [2, 2, hidden]
    graph = helper.make_graph(
        g.nodes, g.name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, [5, 2, 6])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [5, 2, 2, hidden]),
         helper.make_tensor_value_info("state", TensorProto.FLOAT, state)], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="mote-tests")
    model.ir_version = 7
    onnx.save(model, os.path.join(out_dir, g.name + ".onnx"))
    with open(os.path.join(out_dir, g.name + ".json"), "w") as f:
        json.dump({"input_shape": [5, 2, 6], "input_type": "float32", "input_range": [-1.0, 1.0],
                   "outputs": [{"count": 5 * 2 * 2 * hidden, "scale": 1.0 / 128},
                               {"count": 2 * 2 * hidden, "scale": 1.0 / 64}]}, f)


def recurrent_layout1_batch(out_dir, name, cell, direction, batch, linear_before_reset=None,
                            states=False):
    """Layout 1 over a batch of more than one: X [B, 5, 6] straight from the quantized input,
    optionally constant initial states [B, D, H]; Y [B, 5, D, H] and each state quantized by its
    own QuantizeLinear, all graph outputs."""
    g = Qdq(name, [batch, 5, 6], uint8=True, opset=14)
    hidden, gates = 7, 4 if cell == "LSTM" else 3
    d = 2 if direction == "bidirectional" else 1
    inputs = [g.x, g.const(rnn_weights(g.rng, d, gates * hidden, 6), "w"),
              g.const(rnn_weights(g.rng, d, gates * hidden, hidden), "r"),
              g.const(g.rng.uniform(-0.5, 0.5, (d, 2 * gates * hidden)).astype(np.float32), "b")]
    state = [batch, d, hidden]
    if states:
        inputs.append("")
        for _ in range(2 if cell == "LSTM" else 1):
            inputs.append(g.const(g.rng.uniform(-0.8, 0.8, state).astype(np.float32), "state"))
    outputs = ["y", "y_h"] + (["y_c"] if cell == "LSTM" else [])
    attrs = {"hidden_size": hidden, "direction": direction, "layout": 1}
    if linear_before_reset is not None:
        attrs["linear_before_reset"] = linear_before_reset
    g.nodes.append(helper.make_node(cell, inputs, outputs, **attrs))
    scales = [1.0 / 128, 1.0 / 64, 1.0 / 32]
    graph_outputs = []
    for k, o in enumerate(outputs):
        g.nodes.append(helper.make_node("Identity", [g.quantize(o, scales[k])], ["out_" + o]))
        shape = [batch, 5, d, hidden] if k == 0 else state
        graph_outputs.append(helper.make_tensor_value_info("out_" + o, TensorProto.FLOAT, shape))
    graph = helper.make_graph(
        g.nodes, g.name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, g.input_shape)],
        graph_outputs, g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)],
                              producer_name="mote-tests")
    model.ir_version = 7
    onnx.save(model, os.path.join(out_dir, g.name + ".onnx"))
    with open(os.path.join(out_dir, g.name + ".json"), "w") as f:
        json.dump({"input_shape": g.input_shape, "input_type": "float32",
                   "input_range": [-1.0, 1.0],
                   "outputs": [{"count": batch * 5 * d * hidden, "scale": scales[0]}] +
                              [{"count": batch * d * hidden, "scale": scales[k]}
                               for k in range(1, len(outputs))]}, f)
    mark_layout1(out_dir, name)


def recurrent_stacked(out_dir, name, batch, layout):
    """Two stacked layers, float between them as PyTorch's export and quantize_static leave
    them: a bidirectional LSTM whose Y reaches a GRU through Transpose (0, 2, 1, 3) and Reshape
    [T, B, 2H] in layout 0, PyTorch's; through a Reshape [B, T, 2H] alone in layout 1. The
    GRU's Y quantized, a graph output."""
    g = Qdq(name, [batch, 6, 8] if layout else [6, batch, 8], uint8=True, opset=14)
    hidden = 6
    lstm = [g.x, g.const(rnn_weights(g.rng, 2, 4 * hidden, 8), "w"),
            g.const(rnn_weights(g.rng, 2, 4 * hidden, hidden), "r"),
            g.const(g.rng.uniform(-0.5, 0.5, (2, 8 * hidden)).astype(np.float32), "b")]
    extra = {"layout": 1} if layout else {}
    g.nodes.append(helper.make_node("LSTM", lstm, ["y1"], hidden_size=hidden,
                                    direction="bidirectional", **extra))
    y1 = "y1"
    if not layout:
        g.nodes.append(helper.make_node("Transpose", ["y1"], ["y1_t"], perm=[0, 2, 1, 3]))
        y1 = "y1_t"
    between = [batch, 6, 2 * hidden] if layout else [6, batch, 2 * hidden]
    g.nodes.append(helper.make_node("Reshape", [y1, g.const(np.array(between, np.int64), "shape")],
                                    ["x2"]))
    gru = ["x2", g.const(rnn_weights(g.rng, 1, 3 * hidden, 2 * hidden), "w"),
           g.const(rnn_weights(g.rng, 1, 3 * hidden, hidden), "r"),
           g.const(g.rng.uniform(-0.5, 0.5, (1, 6 * hidden)).astype(np.float32), "b")]
    g.nodes.append(helper.make_node("GRU", gru, ["y2"], hidden_size=hidden, linear_before_reset=1,
                                    **extra))
    shape = [batch, 6, 1, hidden] if layout else [6, 1, batch, hidden]
    g.save(out_dir, g.quantize("y2", 1.0 / 128), 1.0 / 128, shape)
    if layout:
        mark_layout1(out_dir, name)


def bad_recurrent(out_dir):
    """LSTMs Mote refuses: a non-default activation, a sequence_lens shorter than the input."""
    for name, extra_inputs, attrs in (
            ("bad_lstm_activation", [], {"activations": ["Sigmoid", "Relu", "Tanh"]}),
            ("bad_lstm_sequence_lens", ["", "lens"], {})):
        g = Qdq(name, [6, 1, 8])
        inputs = [g.x, g.const(rnn_weights(g.rng, 1, 16, 8), "w"),
                  g.const(rnn_weights(g.rng, 1, 16, 4), "r")] + extra_inputs
        if "lens" in extra_inputs:
            g.inits.append(numpy_helper.from_array(np.array([3], np.int32), "lens"))
        y = g.fresh("lstm")
        g.nodes.append(helper.make_node("LSTM", inputs, [y], hidden_size=4, **attrs))
        g.save(out_dir, g.quantize(y, 1.0 / 128), 1.0 / 128, [6, 1, 1, 4])
        os.remove(os.path.join(out_dir, name + ".json"))


def bad_models(out_dir):
    """Models Mote must refuse with a clear message: an operator it lacks, a symbolic batch
    size (which --input-shape fixes). They have no NAME.json: the reference run skips them."""
    g = Qdq("bad_unsupported", [1, 8, 6, 6])
    x = g.op("Hardmax", [g.conv(g.x, 8, 8, 3)])
    g.save(out_dir, x, g.scale, [1, 8, 6, 6])
    os.remove(os.path.join(out_dir, "bad_unsupported.json"))
    g = Qdq("bad_dynamic", [1, 8, 6, 6])
    g.save(out_dir, g.conv(g.x, 8, 8, 3), g.scale, ["batch", 8, 6, 6],
           declared_input=["batch", 8, 6, 6])
    os.remove(os.path.join(out_dir, "bad_dynamic.json"))
    def conv_transpose(name, **attrs):
        g = Qdq(name, [1, 8, 6, 6])
        w, _ = g.weights((8, 4 if attrs.get("group") == 2 else 8, 3, 3), 72, per_channel=False)
        g.save(out_dir, g.op("ConvTranspose", [g.x, w], kernel_shape=[3, 3], **attrs), g.scale,
               [1, 8, 8, 8])
        os.remove(os.path.join(out_dir, name + ".json"))
    conv_transpose("bad_convtranspose_dilated", dilations=[2, 2])
    conv_transpose("bad_convtranspose_grouped", group=2)
    conv_transpose("bad_convtranspose_odd_same", strides=[2, 2], auto_pad="SAME_UPPER")
    g = Qdq("bad_max3", [1, 8, 6, 6])
    g.save(out_dir, g.op("Max", [g.x, g.x, g.x]), g.scale, [1, 8, 6, 6])
    os.remove(os.path.join(out_dir, "bad_max3.json"))
    g = Qdq("bad_slice_empty", [1, 8, 6, 6])
    x = g.op("Slice", [g.x, g.const(np.array([4], np.int64), "starts"),
                       g.const(np.array([2], np.int64), "ends"),
                       g.const(np.array([2], np.int64), "axes")])
    g.save(out_dir, x, g.scale, [1, 8, 0, 6])
    os.remove(os.path.join(out_dir, "bad_slice_empty.json"))
    g = Qdq("bad_conv_stride0", [1, 8, 6, 6])
    g.save(out_dir, g.conv(g.x, 8, 8, 3, stride=0), g.scale, [1, 8, 6, 6])
    os.remove(os.path.join(out_dir, "bad_conv_stride0.json"))
    g = Qdq("bad_unsqueeze_axis", [1, 8, 6, 6])
    g.save(out_dir, g.op("Unsqueeze", [g.x, g.const(np.array([7], np.int64), "axes")]), g.scale,
           [1, 8, 6, 6, 1])
    os.remove(os.path.join(out_dir, "bad_unsqueeze_axis.json"))
    g = Qdq("bad_constant_output", [1, 8, 6, 6])
    y = g.conv(g.x, 8, 8, 3)
    g.nodes.append(helper.make_node("Identity", [g.const(np.ones(4, np.float32), "anchors")],
                                    ["anchors"]))
    g.save(out_dir, y, g.scale, [1, 8, 6, 6])
    model = onnx.load(os.path.join(out_dir, "bad_constant_output.onnx"))
    model.graph.output.append(helper.make_tensor_value_info("anchors", TensorProto.FLOAT, [4]))
    onnx.save(model, os.path.join(out_dir, "bad_constant_output.onnx"))
    os.remove(os.path.join(out_dir, "bad_constant_output.json"))
    with open(os.path.join(out_dir, "bad_text.onnx"), "w") as f:
        f.write("not a model\n")
    with open(os.path.join(out_dir, "qdq_cnn.onnx"), "rb") as f:
        whole = f.read()
    with open(os.path.join(out_dir, "bad_truncated.onnx"), "wb") as f:
        f.write(whole[: len(whole) // 2])


def anchors(out_dir, name, uint8):
    """An SSD head as tf2onnx writes it: class scores, and anchors that depend on no input, a
    quantized constant per level tiled by the batch size (Shape, Gather, Concat, Cast, Tile),
    reshaped, concatenated and dequantized into a float graph output."""
    g = Qdq(name, [1, 4, 8, 8], uint8=uint8)
    x = g.conv(g.x, 4, 6, 3, stride=2, activation="relu")
    scores = g.conv(x, 6, 6, 1)
    levels = []
    for k, cells in enumerate([4, 2]):
        grid = g.rng.integers(0 if uint8 else -128, 256 if uint8 else 128,
                              (1, cells, cells, 3, 4)).astype(np.uint8 if uint8 else np.int8)
        batch = g.fresh("batch")
        shape = g.fresh("shape")
        g.nodes.append(helper.make_node("Shape", [scores], [shape]))
        g.nodes.append(helper.make_node("Gather", [shape, g.const(np.array([0], np.int64), "i")],
                                        [batch], axis=0))
        multiples = g.fresh("multiples")
        g.nodes.append(helper.make_node(
            "Concat", [batch, g.const(np.ones(4, np.int64), "ones")], [multiples], axis=0))
        tiled, flat = g.fresh("tiled"), g.fresh("flat")
        g.nodes.append(helper.make_node("Tile", [g.const(grid, f"grid{k}"), multiples], [tiled]))
        g.nodes.append(helper.make_node(
            "Reshape", [tiled, g.const(np.array([1, -1, 4], np.int64), "shape")], [flat]))
        levels.append(flat)
    joined = g.fresh("joined")
    g.nodes.append(helper.make_node("Concat", levels, [joined], axis=1))
    s, z = g.qparams(1.0 / 64, 100 if uint8 else -20)
    g.nodes.append(helper.make_node("DequantizeLinear", [joined, s, z], ["anchors"]))
    g.save(out_dir, scores, g.scale, [1, 6, 4, 4])
    model = onnx.load(os.path.join(out_dir, name + ".onnx"))
    count = (16 + 4) * 3
    model.graph.output.append(helper.make_tensor_value_info("anchors", TensorProto.FLOAT,
                                                            [1, count, 4]))
    onnx.save(model, os.path.join(out_dir, name + ".onnx"))
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump({"input_shape": [1, 4, 8, 8], "input_type": "float32",
                   "input_range": [-1.0, 1.0],
                   "outputs": [{"count": 6 * 4 * 4, "scale": g.scale},
                               {"count": count * 4, "scale": 1.0 / 64}]}, f)


def float_model(out_dir):
    """A float model without quantization: the reader must refuse it."""
    w = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["input", "w"], ["output"], pads=[1, 1, 1, 1])], "float",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 8, 8])], [w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(out_dir, "float_conv.onnx"))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cnn(out, "qdq_cnn")
    cnn(out, "qdq_cnn_uint8", uint8=True)
    anchors(out, "qdq_anchors", uint8=False)
    anchors(out, "qdq_anchors_uint8", uint8=True)
    kws(out)
    branches(out)
    more_operators(out)
    table_functions(out)
    log_softmax(out)
    float_heads(out)
    nhwc_input(out)
    qoperator(out)
    qoperator_softmax(out)
    qoperator_pad(out)
    qoperator_argmax(out)
    uint8_io(out)
    field_operators(out)
    constant_arithmetic(out)
    max_pool_pads(out)
    arg_max(out)
    conv1d(out)
    conv_transpose(out)
    recurrent(out, "qdq_lstm", "LSTM")
    recurrent(out, "qdq_lstm_bidirectional", "LSTM", direction="bidirectional",
              dequantized_weights=True, initial_h=True, peephole=True)
    recurrent(out, "qdq_gru", "GRU", linear_before_reset=0)
    recurrent(out, "qdq_gru_linear_before_reset", "GRU", direction="reverse",
              linear_before_reset=1, initial_h=True)
    recurrent_streaming(out)
    recurrent_batch(out)
    # Layout 1 (batch first): batch 1 and more, each direction, both cells; stacked layers.
    recurrent(out, "qdq_lstm_layout1", "LSTM", direction="bidirectional", initial_h=True,
              peephole=True, layout=1)
    recurrent(out, "qdq_gru_layout1", "GRU", linear_before_reset=1, layout=1)
    recurrent_layout1_batch(out, "qdq_lstm_layout1_batch3", "LSTM", "bidirectional", 3,
                            states=True)
    recurrent_layout1_batch(out, "qdq_gru_layout1_batch2", "GRU", "reverse", 2,
                            linear_before_reset=0, states=True)
    recurrent_stacked(out, "qdq_rnn_stacked", 1, 0)
    recurrent_stacked(out, "qdq_rnn_stacked_layout1_batch2", 2, 1)
    float_model(out)
    bad_models(out)
    bad_recurrent(out)


if __name__ == "__main__":
    main()
