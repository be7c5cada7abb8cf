#!/usr/bin/env python3
"""The .tflite twin: a network read from .onnx costs what the same network read from .tflite
costs, so the ONNX front end adds nothing at run time.

mote_write_twin_models writes each network (the builder's DS-CNN and ResNet-8 of MLPerf Tiny's
shapes, a MobileNetV2 inverted residual block) as NAME.tflite and as its IR graph in JSON; this
script writes the same graph as a QDQ .onnx (NCHW weights, DequantizeLinear before and
QuantizeLinear after every operator, the same scales and zero points), then for cortex-m4 and
cortex-m55 runs `mote analyze` on both and requires equal arenas, lower bounds, operators,
kernel variants, scratch, MACs and estimated instructions, and runs both programs on one input
and requires the same output bytes (the .onnx read with --rounding tflite). Exit 77 (skipped) without python3-onnx.

Usage: twin_test.py --mote BUILD/mote --writer BUILD/.../mote_write_twin_models --work DIR
"""
import argparse
import json
import os
import subprocess
import sys

SKIP = 77
TARGETS = ["cortex-m4", "cortex-m55"]
# Per operator and in total: what must be equal.
ROW_FIELDS = ["type", "output_shape", "macs", "constant_bytes", "live_bytes", "arena_bytes",
              "scratch_bytes", "kernel_variant"]
TOTAL_FIELDS = ["operators", "macs", "constant_bytes", "arena_bytes", "lower_bound_bytes",
                "max_scratch_bytes", "optimize", "estimated_instructions",
                "estimated_extra_instructions"]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n"
                           f"{r.stdout.decode()}{r.stderr.decode()}")
    return r.stdout


def same_pads(size, kernel, stride, dilation):
    """TFLite's SAME padding of one dimension as ONNX's (begin, end)."""
    out = (size + stride - 1) // stride
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def to_onnx(graph, name, path):
    """The IR graph as a QDQ ONNX model with the same quantization everywhere."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    tensors, nodes, inits = graph["tensors"], [], []
    readers = {}
    for op in graph["operators"]:
        for i in op["inputs"]:
            readers[i] = readers.get(i, 0) + 1

    def const(array, base):
        n = f"{base}_{len(inits)}"
        inits.append(numpy_helper.from_array(array, n))
        return n

    def qparams(t):
        scale = np.array(t["scale"], np.float32)
        zp = np.array(t["zero_point"], np.int8 if t["type"] != "INT32" else np.int32)
        if scale.size == 1:
            scale, zp = scale.reshape(()), zp.reshape(())
        return const(scale, "scale"), const(zp, "zp")

    def dequantized(i):
        return f"t{i}_dq"

    def dequantize_value(i):
        s, z = qparams(tensors[i])
        nodes.append(helper.make_node("DequantizeLinear", [f"t{i}", s, z], [dequantized(i)]))

    def constant_operand(i, onnx_array, axis=0):
        t = tensors[i]
        s, z = qparams(t)
        attrs = {"axis": axis} if len(t["scale"]) > 1 else {}
        n = f"c{i}_dq"
        nodes.append(helper.make_node("DequantizeLinear", [const(onnx_array, "w"), s, z], [n],
                                      **attrs))
        return n

    def nchw(shape):
        return [shape[0], shape[3], shape[1], shape[2]] if len(shape) == 4 else shape

    for i in graph["inputs"]:
        dequantize_value(i)
    for op in graph["operators"]:
        kind, ins, out, o = op["type"], op["inputs"], op["outputs"][0], op["options"]
        y = f"t{out}_f"
        if kind in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            x, w = tensors[ins[0]], tensors[ins[1]]
            wq = np.array(w["data"], np.int8).reshape(w["shape"])
            if kind == "CONV_2D":
                weights, group = wq.transpose(0, 3, 1, 2), 1  # [O,kh,kw,I] -> [O,I,kh,kw]
            else:
                weights, group = wq.transpose(3, 0, 1, 2), x["shape"][3]  # [1,kh,kw,C] -> [C,1,..]
            kh, kw = weights.shape[2], weights.shape[3]
            (sh, sw), (dh, dw) = o["stride"], o["dilation"]
            if o["padding"] == "SAME":
                (t0, b0), (l0, r0) = (same_pads(x["shape"][1], kh, sh, dh),
                                      same_pads(x["shape"][2], kw, sw, dw))
            else:
                t0 = b0 = l0 = r0 = 0
            inputs = [dequantized(ins[0]), constant_operand(ins[1], weights)]
            if len(ins) > 2 and ins[2] >= 0:
                inputs.append(constant_operand(ins[2], np.array(tensors[ins[2]]["data"], np.int32)))
            nodes.append(helper.make_node("Conv", inputs, [y], kernel_shape=[kh, kw],
                                          strides=[sh, sw], dilations=[dh, dw],
                                          pads=[t0, l0, b0, r0], group=group))
        elif kind == "FULLY_CONNECTED":
            w = tensors[ins[1]]
            weights = np.array(w["data"], np.int8).reshape(w["shape"])
            inputs = [dequantized(ins[0]), constant_operand(ins[1], weights)]
            if len(ins) > 2 and ins[2] >= 0:
                inputs.append(constant_operand(ins[2], np.array(tensors[ins[2]]["data"], np.int32)))
            nodes.append(helper.make_node("Gemm", inputs, [y], transB=1))
        elif kind in ("AVERAGE_POOL_2D", "MAX_POOL_2D"):
            x = tensors[ins[0]]
            (kh, kw), (sh, sw) = o["filter"], o["stride"]
            if o["padding"] == "SAME":
                (t0, b0), (l0, r0) = (same_pads(x["shape"][1], kh, sh, 1),
                                      same_pads(x["shape"][2], kw, sw, 1))
            else:
                t0 = b0 = l0 = r0 = 0
            nodes.append(helper.make_node("AveragePool" if kind == "AVERAGE_POOL_2D" else
                                          "MaxPool", [dequantized(ins[0])], [y],
                                          kernel_shape=[kh, kw], strides=[sh, sw],
                                          pads=[t0, l0, b0, r0]))
        elif kind == "RESHAPE":
            shape = const(np.array(tensors[out]["shape"], np.int64), "shape")
            nodes.append(helper.make_node("Reshape", [dequantized(ins[0]), shape], [y]))
        elif kind == "ADD":
            nodes.append(helper.make_node("Add", [dequantized(ins[0]), dequantized(ins[1])], [y]))
        elif kind == "SOFTMAX":
            nodes.append(helper.make_node("Softmax", [dequantized(ins[0])], [y], axis=-1))
        else:
            raise ValueError(f"{name}: no ONNX form written for {kind}")
        activation = o.get("activation", "NONE")
        if activation == "RELU":
            nodes.append(helper.make_node("Relu", [y], [y + "_relu"]))
            y += "_relu"
        elif activation == "RELU6":
            lo, hi = const(np.array(0, np.float32), "min"), const(np.array(6, np.float32), "max")
            nodes.append(helper.make_node("Clip", [y, lo, hi], [y + "_clip"]))
            y += "_clip"
        elif activation != "NONE":
            raise ValueError(f"{name}: activation {activation}")
        s, z = qparams(tensors[out])
        nodes.append(helper.make_node("QuantizeLinear", [y, s, z], [f"t{out}"]))
        if readers.get(out, 0):
            dequantize_value(out)
    inputs = [helper.make_tensor_value_info(f"t{i}", TensorProto.INT8, nchw(tensors[i]["shape"]))
              for i in graph["inputs"]]
    outputs = [helper.make_tensor_value_info(f"t{i}", TensorProto.INT8, nchw(tensors[i]["shape"]))
               for i in graph["outputs"]]
    model = helper.make_model(helper.make_graph(nodes, name, inputs, outputs, inits),
                              opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="mote-tests")
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, path)


def analyze(args, model, target, extra):
    return json.loads(run([args.mote, "analyze", model, "--target", target, "--json", "-"]
                          + extra))


def compare(name, target, tflite, onnx_, out):
    """Differences between the two analyses (empty: the same)."""
    problems = []
    a, b = tflite["totals"], onnx_["totals"]
    for f in TOTAL_FIELDS:
        if a.get(f) != b.get(f):
            problems.append(f"total {f}: .tflite {a.get(f)}, .onnx {b.get(f)}")
    if len(tflite["operators"]) == len(onnx_["operators"]):
        for ra, rb in zip(tflite["operators"], onnx_["operators"]):
            for f in ROW_FIELDS:
                if ra[f] != rb[f]:
                    problems.append(f"step {ra['step']} {ra['type']} {f}: .tflite {ra[f]}, "
                                    f".onnx {rb[f]}")
    kernels = " ".join(f"{r['type']}:{r['kernel_variant']}" for r in tflite["operators"])
    out.write(f"{name} {target}: arena {a['arena_bytes']} / {b['arena_bytes']} bytes (lower bound "
              f"{a['lower_bound_bytes']} / {b['lower_bound_bytes']}), {a['operators']} / "
              f"{b['operators']} operators, estimated instructions "
              f"{a.get('estimated_instructions')} / {b.get('estimated_instructions')} "
              f"(+{a.get('estimated_extra_instructions')} / "
              f"+{b.get('estimated_extra_instructions')}) (.tflite / .onnx)\n  kernels: {kernels}\n")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mote", required=True)
    parser.add_argument("--writer", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    try:
        import numpy  # noqa: F401
        import onnx  # noqa: F401
    except ImportError:
        print("skipped: python3-onnx is not installed")
        return SKIP
    os.makedirs(args.work, exist_ok=True)
    run([args.writer, args.work])
    failed = []
    for name in ["kws_dscnn_like", "resnet8_like", "mobilenet_v2_block"]:
        base = os.path.join(args.work, name)
        with open(base + ".graph.json") as f:
            to_onnx(json.load(f), name, base + ".onnx")
        # TFLite's rounding: the default (once, as ONNX Runtime) would change output bytes.
        layout = ["--input-layout", "nhwc", "--output-layout", "nhwc", "--rounding", "tflite"]
        for target in TARGETS:
            a = analyze(args, base + ".tflite", target, [])
            b = analyze(args, base + ".onnx", target, layout)
            problems = compare(name, target, a, b, sys.stdout)
            if a["totals"].get("estimated_instructions") is None:
                problems.append("no instruction estimate for " + target)
            # The same network: the same output bytes from the same input.
            size = 1
            for d in a["operators"][0]["output_shape"]:
                size *= d
            outputs = []
            for model, extra in [(base + ".tflite", []), (base + ".onnx", layout)]:
                program = f"{model}.{target}.mote"
                run([args.mote, "compile", model, "--target", target, "-o", program] + extra)
                run([args.mote, "run", program, "--output", program + ".out"])
                with open(program + ".out", "rb") as f:
                    outputs.append(f.read())
            if outputs[0] != outputs[1] or not outputs[0]:
                problems.append(f"outputs differ ({len(outputs[0])} and {len(outputs[1])} bytes)")
            for p in problems:
                print("  DIFFERS: " + p)
            if problems:
                failed.append(f"{name} {target}")
    if failed:
        print("FAILED: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
