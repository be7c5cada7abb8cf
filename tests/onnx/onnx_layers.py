#!/usr/bin/env python3
"""Where a QDQ model's results part from ONNX Runtime's, layer by layer.

Every activation QuantizeLinear of MODEL gets a DequantizeLinear of its own that is a graph
output (a tap: the operators ONNX Runtime fuses stay fused). Mote (`mote compile`, `mote run`)
and ONNX Runtime (ort_run.js, default session options and graph optimisation disabled) run the
tapped model on one random input (the json's input range, else [-1, 1]); per tap, in graph order:

  global   how many elements lie beyond one step of the range ONNX Runtime's two results span
           (the reference test's criterion), and the largest distance in steps;
  local    the operator recomputed as ONNX defines it (DequantizeLinear, float operator,
           QuantizeLinear rounding half to even, qdq_numpy.py) from Mote's own quantized inputs,
           and from ONNX Runtime's (default options): how many of Mote's and of ONNX Runtime's
           elements differ from it, and by how many steps at most. Mote's local differences are
           the rounding its integer arithmetic adds at that operator alone.

Ends with the local differences summed per operator type. With --exact OP (repeatable), exit 1
unless Mote's local results at those operator types equal ONNX's float path everywhere but
where its value lies within 2^-12 of a step of a tie (the precision Mote's requantization
promises; "at a tie" counts those), and at every other type lie within one step of it (a test of Mote's requantization, which a deep
random network's amplified global differences cannot give).

Usage: onnx_layers.py --mote BUILD/mote --work DIR MODEL.onnx [--target cortex-m4]
       [--rounding tflite] [--exact Conv --exact Concat ...]
       onnx_layers.py --mote BUILD/mote --work DIR --detector ...   (make_detector_models.py's
       detector, written into DIR). Exit 77 (skipped) without Node.js and onnxruntime-node.
"""
import argparse
import collections
import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import qdq_numpy  # noqa: E402
from onnx_reference_test import ort_module, run, write_first_input  # noqa: E402


def attrs_of(node):
    values = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    return {k: v.decode() if isinstance(v, bytes) else v for k, v in values.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mote", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--target", default="cortex-m4")
    parser.add_argument("--rounding", default="once", help="passed to mote compile")
    parser.add_argument("--exact", action="append", default=[],
                        help="an operator type whose local results must equal ONNX's")
    parser.add_argument("--detector", action="store_true")
    parser.add_argument("model", nargs="?")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if ort_module() is None or shutil.which("node") is None:
        print("skipped: Node.js or onnxruntime-node is missing (scripts/setup.sh installs them)")
        return 77
    if args.detector:
        run([sys.executable, os.path.join(HERE, "make_detector_models.py"), args.work])
        args.model = os.path.join(args.work, "qdq_detector.onnx")
    model = onnx.load(args.model)
    graph = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    for n in graph.node:  # PyTorch's exports write scales and zero points as Constant nodes
        if n.op_type == "Constant" and n.attribute and n.attribute[0].name == "value":
            inits[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    for n in graph.node:  # and Identity nodes of them
        if n.op_type == "Identity" and n.input[0] in inits:
            inits[n.output[0]] = inits[n.input[0]]
    writer = {o: n for n in graph.node for o in n.output}
    inferred = onnx.shape_inference.infer_shapes(model).graph
    # A symbolic dimension (a batch) is 1, as `mote compile --input-shape` below fixes it.
    shapes = {v.name: [d.dim_value or 1 for d in v.type.tensor_type.shape.dim]
              for v in list(inferred.value_info) + list(inferred.input) + list(inferred.output)}

    # Taps: one per activation QuantizeLinear, in graph order.
    taps = [n for n in graph.node if n.op_type == "QuantizeLinear" and n.input[0] not in inits]
    for k, q in enumerate(taps):
        name = f"tap{k}"
        shapes[name] = shapes[q.input[0]]
        graph.node.append(helper.make_node("DequantizeLinear", [q.output[0]] + list(q.input[1:]),
                                           [name]))
        graph.output.append(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT,
                                                          shapes[q.input[0]]))
    base = os.path.join(args.work, os.path.splitext(os.path.basename(args.model))[0] + "-taps")
    onnx.save(model, base + ".onnx")

    meta_path = os.path.splitext(args.model)[0] + ".json"
    low, high = -1.0, 1.0
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            low, high = json.load(f).get("input_range", [low, high])
    first = graph.input[0]
    shape = [d.dim_value or 1 for d in first.type.tensor_type.shape.dim]
    kind = write_first_input(first, shape, base, low, high)
    env = dict(os.environ, MOTE_ORT_MODULE=ort_module(), MOTE_ORT_INPUT_SHAPE=json.dumps(shape),
               MOTE_ORT_INPUT_TYPE=kind)
    run(["node", os.path.join(HERE, "ort_run.js"), base + ".onnx", base + ".input.bin",
         base + ".ort-default.bin", base + ".ort-disabled.bin"], env=env)
    run([args.mote, "compile", base + ".onnx", "--target", args.target, "--rounding",
         args.rounding, "--input-shape", first.name + "=" + ",".join(map(str, shape)),
         "-o", base + ".mote"])
    run([args.mote, "run", base + ".mote", "--input", base + ".input.bin", "--output",
         base + ".mote.bin"])

    # Each output's values, for the three runs.
    counts = [int(np.prod([d.dim_value or 1 for d in o.type.tensor_type.shape.dim]))
              for o in graph.output]
    ends = np.cumsum([0] + counts)
    results = {}
    for run_name in ("mote", "ort-default", "ort-disabled"):
        flat = np.fromfile(f"{base}.{run_name}.bin", np.float32)
        results[run_name] = {o.name: flat[ends[i]:ends[i + 1]].reshape(shapes.get(o.name) or [-1])
                             for i, o in enumerate(graph.output)}
    tap_of = {q.output[0]: f"tap{k}" for k, q in enumerate(taps)}

    def qparams(q):
        scale = float(inits[q.input[1]])
        zp = inits[q.input[2]] if len(q.input) > 2 else np.uint8(0)
        bounds = (0, 255) if zp.dtype == np.uint8 else (-128, 127)
        return scale, int(zp), bounds

    def value(name, source):
        """Float value `name` as ONNX computes it from `source`'s quantized activations (raises
        ValueError for an operator qdq_numpy.py does not implement)."""
        if name in inits:
            return inits[name]
        node = writer[name]
        if node.op_type == "DequantizeLinear":
            if node.input[0] in tap_of:  # an activation: the run's own values
                return results[source][tap_of[node.input[0]]]
            q = value(node.input[0], source).astype(np.float32)
            s = inits[node.input[1]].astype(np.float32)
            z = inits[node.input[2]].astype(np.float32) if len(node.input) > 2 else np.float32(0)
            if s.ndim:  # per axis
                axis = attrs_of(node).get("axis", 1)
                bshape = [1] * q.ndim
                bshape[axis] = -1
                s, z = s.reshape(bshape), z.reshape(bshape)
            return ((q - z) * s).astype(np.float32)
        if node.op_type == "QuantizeLinear":  # of a constant (a float weight), maybe per axis
            x = value(node.input[0], source)
            s = inits[node.input[1]].astype(np.float32)
            z = inits[node.input[2]] if len(node.input) > 2 else np.uint8(0)
            bounds = (0, 255) if z.dtype == np.uint8 else (-128, 127)
            if s.ndim:
                bshape = [1] * x.ndim
                bshape[attrs_of(node).get("axis", 1)] = -1
                s, z = s.reshape(bshape), z.reshape(bshape)
            return np.clip(np.rint(x / s) + z.astype(np.float32), *bounds)
        inputs = [value(i, source) if i else None for i in node.input]
        return qdq_numpy.run_op(node.op_type, inputs, attrs_of(node))

    def operator(q):
        """The operator a QuantizeLinear quantizes (through a fused Clip or Relu)."""
        node = writer.get(q.input[0])
        while node is not None and node.op_type in ("Clip", "Relu"):
            node = writer.get(node.input[0])
        return node.op_type if node is not None else "input"

    per_type = collections.defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    print(f"{'tap':>6} {'operator':<18} {'elements':>8} | global: beyond  worst | "
          f"local vs ONNX's float path: Mote differ max, ORT differ max")
    for k, q in enumerate(taps):
        name = f"tap{k}"
        scale, zp, bounds = qparams(q)
        m, a, b = (results[r][name] for r in ("mote", "ort-default", "ort-disabled"))
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        beyond = np.maximum(lo - m, m - hi) / scale
        outside = int(np.count_nonzero(beyond > 1.001))
        local = ""
        op = operator(q)
        if q.input[0] in writer and op != "input":
            try:
                real = {src: value(q.input[0], src) for src in ("mote", "ort-default")}
                expected = {src: qdq_numpy.quantize(real[src], scale, zp, *bounds)
                            for src in real}
            except (KeyError, TypeError, ValueError) as e:  # an operator qdq_numpy.py lacks
                expected = None
                local = f"n/a ({e})"
            if expected is not None:
                dm = np.abs(np.rint(m.reshape(-1) / scale) + zp - expected["mote"].reshape(-1))
                # A float path result within 2^-12 of a step of a tie (Mote's requantization is
                # that exact, lower_context.h; float32 noise is finer still) may go either way.
                steps = real["mote"].reshape(-1).astype(np.float64) / scale
                tie = np.abs(steps - np.floor(steps) - 0.5) < 2.0 ** -12
                ties = int(np.count_nonzero((dm == 1) & tie))
                da = np.abs(np.rint(a.reshape(-1) / scale) + zp - expected["ort-default"].reshape(-1))
                t = per_type[op]
                t[0] += int(np.count_nonzero(dm))
                t[1] = max(t[1], int(dm.max()))
                t[2] += int(np.count_nonzero(da))
                t[3] = max(t[3], int(da.max()))
                t[4] += dm.size
                t[5] += ties
                local = (f"{int(np.count_nonzero(dm)):6d} {int(dm.max()):3d}  "
                         f"{int(np.count_nonzero(da)):6d} {int(da.max()):3d}"
                         + (f"  ({ties} at a tie)" if ties else ""))
        print(f"{name:>6} {op:<18} {m.size:8d} | {outside:6d} {max(float(beyond.max()), 0):6.2f} | "
              f"{local}")
    print("\nlocal differences per operator type (elements, largest in steps):")
    for op, (dm, mm, da, ma, n, ties) in sorted(per_type.items()):
        print(f"  {op:<18} {n:7d} elements: Mote {dm:6d} (max {mm}; {ties} at a tie), "
              f"ONNX Runtime {da:6d} (max {ma})")
    if not args.exact:
        return 0
    failed = [op for op, (dm, mm, _, _, _, ties) in per_type.items()
              if (op in args.exact and dm > ties) or mm > 1]
    missing = [op for op in args.exact if op not in per_type]
    if failed or missing:
        print("FAILED: " + ", ".join([f"{op} differs" for op in failed] +
                                     [f"no {op} in the model" for op in missing]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
