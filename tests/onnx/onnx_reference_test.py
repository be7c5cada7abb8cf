#!/usr/bin/env python3
"""Mote against ONNX Runtime on quantized ONNX models written at test time.

Writes the QDQ test graphs (make_qdq_models.py) and, with --torch, PyTorch's fake-quantized
exports (make_torch_models.py); for each model runs ONNX Runtime (onnxruntime-node, ort_run.js)
with default session options and with graph optimisation disabled, compiles the model with
`mote compile` for every --target, runs each program with `mote run` on the host, and checks
that every output element lies within one output quantization step of the range ONNX Runtime's
two results span. Prints, per model, how many elements differ at all. Exit 77 (skipped) when
python3-onnx, Node.js or onnxruntime-node is missing.

Usage: onnx_reference_test.py --mote BUILD/mote --work DIR [--torch] [--target cortex-m4 ...]
       [--model NAME ...]
       onnx_reference_test.py --mote BUILD/mote --work DIR --field MODEL.onnx [--field ...]
       [--field-input INPUT.bin] [--write-graphs] (a model from elsewhere: a report of its outputs
       against ONNX Runtime's, and of a third implementation's, ONNX's definition in numpy,
       qdq_numpy.py; --write-graphs writes the test graphs into DIR first)
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def ort_module():
    """The onnxruntime-node package: MOTE_ORT_MODULE, else where scripts/setup.sh installs it."""
    for candidate in [os.environ.get("MOTE_ORT_MODULE", ""),
                      os.path.join(HERE, "..", "..", "build", "onnxruntime", "node_modules",
                                   "onnxruntime-node"),
                      "/opt/mote/onnxruntime/node_modules/onnxruntime-node"]:
        if candidate and os.path.isdir(candidate):
            return os.path.abspath(candidate)
    return None


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


def spec_outputs(path, xs):
    """The model's outputs, concatenated, by ONNX's definition in numpy (qdq_numpy.run_graph)
    from inputs `xs` in order; None where it lacks an operator."""
    import onnx
    import qdq_numpy
    model = onnx.load(path)
    initializers = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    try:
        outputs = qdq_numpy.run_graph(model, dict(zip(names, xs)))
    except (ValueError, KeyError):
        return None
    return np.concatenate([np.asarray(o).reshape(-1) for o in outputs])


def check_model(args, module, name):
    work = args.work
    model = os.path.join(work, name + ".onnx")
    with open(os.path.join(work, name + ".json")) as f:
        meta = json.load(f)
    rng = np.random.default_rng(7)
    # Several float inputs (a streaming model's state): "inputs", each its shape and range; or
    # one uint8 input ("input_type"), any byte.
    inputs = meta.get("inputs", [{"shape": meta.get("input_shape"),
                                  "range": meta.get("input_range")}])
    uint8_input = meta.get("input_type") == "uint8"
    if uint8_input:
        xs = [rng.integers(0, 256, inputs[0]["shape"]).astype(np.uint8)]
    else:
        xs = [rng.uniform(i["range"][0], i["range"][1], i["shape"]).astype(np.float32)
              for i in inputs]
    input_path = os.path.join(work, name + ".input.bin")
    np.concatenate([x.reshape(-1) for x in xs]).tofile(input_path)
    input_paths = []
    for k, x in enumerate(xs):
        input_paths.append(os.path.join(work, f"{name}.input{k}.bin"))
        x.tofile(input_paths[-1])
    ort_default = os.path.join(work, name + ".ort-default.bin")
    ort_plain = os.path.join(work, name + ".ort-disabled.bin")
    env = dict(os.environ, MOTE_ORT_MODULE=module)
    if uint8_input:
        env.update(MOTE_ORT_INPUT_TYPE="uint8", MOTE_ORT_INPUT_SHAPE=json.dumps(inputs[0]["shape"]))
    else:
        env["MOTE_ORT_INPUT_SHAPES"] = json.dumps([i["shape"] for i in inputs])
    # A uint8 output ("output_type") is compared in its integers (output_scale 1), int64
    # indices (ArgMax's) exactly (output_scale 0).
    output_type = {"uint8": np.uint8, "int64": np.int64}.get(meta.get("output_type"), np.float32)
    # "reference": the model ONNX Runtime runs instead, the same by ONNX's definition (it
    # refuses an LSTM's or GRU's layout 1).
    reference = os.path.join(work, meta.get("reference", name + ".onnx"))
    run(["node", os.path.join(HERE, "ort_run.js"), reference, input_path, ort_default, ort_plain],
        env=env)
    ok = True
    if "transposes" in meta:
        # The layout's cost: transposes only where the graph's NCHW input or output needs one.
        ops = json.loads(run([args.mote, "inspect", model, "--json", "-"]))["operators"]
        count = sum(1 for op in ops if op["type"] == "TRANSPOSE")
        print(f"{name}: {count} TRANSPOSE operators (expected {meta['transposes']})")
        ok = count == meta["transposes"]
    a = np.fromfile(ort_default, output_type).astype(np.float32)
    b = np.fromfile(ort_plain, output_type).astype(np.float32)
    # The output's step per element: one scale, or per output ("outputs": count and scale).
    if "outputs" in meta:
        step = np.concatenate([np.full(o["count"], o["scale"]) for o in meta["outputs"]])
    else:
        step = np.full(a.size, meta["output_scale"])
    low, high = np.minimum(a, b), np.maximum(a, b)
    # ONNX's definition in numpy (qdq_numpy.run_graph), where it implements every operator:
    # within one step of ONNX Runtime's range like Mote, a check of the third implementation
    # that --field's reports set beside Mote.
    spec = spec_outputs(reference, xs)
    if spec is not None:
        spec = spec.astype(output_type).astype(np.float32)
        beyond = int(np.count_nonzero((spec < low - step * 1.001) | (spec > high + step * 1.001)))
        print(f"{name} numpy: {beyond} elements beyond one step of ONNX Runtime's range")
        ok = ok and beyond == 0
    for target in args.target:
        program = os.path.join(work, f"{name}-{target}.mote")
        out = os.path.join(work, f"{name}-{target}.out.bin")
        run([args.mote, "compile", model, "--target", target, "-o", program])
        run([args.mote, "run", program, "--output", out]
            + [a for p in input_paths for a in ("--input", p)])
        m = np.fromfile(out, output_type).astype(np.float32)
        if m.shape != a.shape:
            print(f"{name} {target}: {m.size} output elements, ONNX Runtime gives {a.size}")
            ok = False
            continue
        tolerance = step * 1.001
        outside = (m < low - tolerance) | (m > high + tolerance)
        outside |= (step == 0) & (m != a) & (m != b)  # an index is one of ONNX Runtime's or wrong
        differ = int(np.count_nonzero((m != a) | (m != b)))
        unit = np.where(step > 0, step, 1)  # indices: steps of one
        spread = int(np.round(np.max((high - low) / unit))) if a.size else 0
        worst = float(np.max(np.maximum(low - m, m - high) / unit)) if a.size else 0.0
        print(f"{name} {target}: {a.size} elements, {differ} differ from ONNX Runtime at all, "
              f"{int(np.count_nonzero(outside))} beyond one step of its range (worst "
              f"{max(worst, 0):.2f} steps outside; its two results differ by up to {spread} steps)")
        if np.any(outside):
            ok = False
    for cpu in args.firmware:
        r = subprocess.run([args.mote, "validate", model, "--target", cpu], capture_output=True,
                           text=True)
        print(f"{name} {cpu} under QEMU: {(r.stdout + r.stderr).strip().splitlines()[-1]}")
        ok = ok and r.returncode == 0
    return ok


def write_first_input(first, shape, base, low=-1.0, high=1.0):
    """A random value for graph input `first` (a ValueInfoProto; uint8 and int8 over their whole
    range, float in [low, high]) as base.input.bin, for ONNX Runtime and the program alike (the
    program takes the type the model declares). Returns its type name for ort_run.js."""
    import onnx
    kind = {onnx.TensorProto.UINT8: "uint8", onnx.TensorProto.INT8: "int8"}.get(
        first.type.tensor_type.elem_type, "float32")
    rng = np.random.default_rng(7)
    if kind == "float32":
        x = rng.uniform(low, high, shape).astype(np.float32)
    else:
        x = rng.integers(0 if kind == "uint8" else -128, 256 if kind == "uint8" else 128,
                         shape).astype(kind)
    x.tofile(base + ".input.bin")
    return kind


def check_field_model(args, module, path):
    """A model from elsewhere (not written here): its first input random (uint8, int8 or float
    in [-1, 1], symbolic dimensions 1) or --field-input's bytes (a real image, say), every
    output compared with ONNX Runtime's in steps of the scale of the DequantizeLinear that
    writes it. Prints, per output and target, how many elements differ and the largest
    difference; then the same for ONNX's definition evaluated in numpy (qdq_numpy.run_graph:
    float32 tensors, float64 sums), an implementation that is neither Mote nor ONNX Runtime:
    how far any third implementation lies from ONNX Runtime's two on this model. A report,
    not a pass or fail."""
    import onnx
    from onnx import numpy_helper
    import qdq_numpy
    model = onnx.load(path)
    initializers = {i.name: i for i in model.graph.initializer}
    first = [i for i in model.graph.input if i.name not in initializers][0]
    shape = [d.dim_value if d.dim_value > 0 else 1 for d in first.type.tensor_type.shape.dim]
    name = os.path.splitext(os.path.basename(path))[0]
    base = os.path.join(args.work, name)
    kind = write_first_input(first, shape, base)
    if args.field_input:
        shutil.copyfile(args.field_input, base + ".input.bin")
    x = np.fromfile(base + ".input.bin", kind)
    if x.size != int(np.prod(shape)):
        raise RuntimeError(f"{args.field_input}: {x.size} {kind} elements, the input "
                           f"'{first.name}' {shape} takes {int(np.prod(shape))}")
    env = dict(os.environ, MOTE_ORT_MODULE=module, MOTE_ORT_INPUT_SHAPE=json.dumps(shape),
               MOTE_ORT_INPUT_TYPE=kind)
    run(["node", os.path.join(HERE, "ort_run.js"), path, base + ".input.bin",
         base + ".ort-default.bin", base + ".ort-disabled.bin"], env=env)
    writers = {o: n for n in model.graph.node for o in n.output}
    outputs = []
    for o in model.graph.output:
        count = int(np.prod([d.dim_value if d.dim_value > 0 else 1
                             for d in o.type.tensor_type.shape.dim]))
        node = writers.get(o.name)
        while node is not None and node.op_type == "Identity":
            node = writers.get(node.input[0])
        scale = 0.0
        if node is not None and node.op_type == "DequantizeLinear" and node.input[1] in initializers:
            scale = float(numpy_helper.to_array(initializers[node.input[1]]).reshape(-1)[0])
        outputs.append((o.name, count, scale))
    a = np.fromfile(base + ".ort-default.bin", np.float32)
    b = np.fromfile(base + ".ort-disabled.bin", np.float32)

    def report(who, m):
        if m.size != a.size:
            print(f"{name} {who}: {m.size} output elements, ONNX Runtime gives {a.size}")
            return
        at = 0
        for out_name, count, scale in outputs:
            mm, aa, bb = m[at:at + count], a[at:at + count], b[at:at + count]
            at += count
            low, high = np.minimum(aa, bb), np.maximum(aa, bb)
            beyond = np.maximum(low - mm, mm - high).clip(min=0)
            largest = (f"{float(beyond.max() / scale):.2f} steps" if scale
                       else f"{float(beyond.max()):.2e} (absolute)")
            print(f"{name} {who} output '{out_name}': {count} elements, "
                  f"{int(np.count_nonzero((mm != aa) | (mm != bb)))} differ from ONNX Runtime, "
                  f"{int(np.count_nonzero(beyond > scale * 1.001))} beyond one step of its range, "
                  f"largest {largest} outside it")

    shape_arg = ["--input-shape", first.name + "=" + ",".join(str(d) for d in shape)]
    for target in args.target:
        program = f"{base}-{target}.mote"
        r = subprocess.run([args.mote, "compile", path, "--target", target, "-o", program]
                           + shape_arg, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{name} {target}: refused: {r.stderr.strip().splitlines()[-1]}")
            continue
        run([args.mote, "run", program, "--input", base + ".input.bin", "--output",
             program + ".out"])
        report(target, np.fromfile(program + ".out", np.float32))
    try:
        spec = qdq_numpy.run_graph(model, {first.name: x.reshape(shape)})
    except (ValueError, KeyError) as e:
        print(f"{name} numpy: not evaluated ({e})")
        return
    report("numpy", np.concatenate([np.asarray(o, np.float32).reshape(-1) for o in spec]))


# Refused models: (file, extra arguments, what the message must say).
REFUSED = [
    ("float_conv.onnx", [], "Mote compiles int8 models; quantize it first"),
    ("bad_unsupported.onnx", [], "(Hardmax, domain ai.onnx, opset 13): not supported"),
    ("bad_dynamic.onnx", [], "--input-shape input=1,8,6,6"),
    ("bad_truncated.onnx", [], "not a readable ONNX model"),
    ("bad_text.onnx", [], "not a readable ONNX model"),
    ("bad_convtranspose_dilated.onnx", [],
     "(ConvTranspose, domain ai.onnx, opset 13): dilations [2,2] not supported"),
    ("bad_convtranspose_grouped.onnx", [], "group 2 not supported: TFLite's TRANSPOSE_CONV"),
    ("bad_convtranspose_odd_same.onnx", [], "export with explicit pads"),
    ("bad_constant_output.onnx", [], "graph output 'anchors' is a constant (it depends on no "
                                     "input) that is not the float DequantizeLinear"),
    ("bad_conv_stride0.onnx", [], "strides [0,0] or dilations [1,1] out of range"),
    ("bad_unsqueeze_axis.onnx", [], "(Unsqueeze, domain ai.onnx, opset 13): axis 7 out of range "
                                    "for rank 5"),
    ("bad_max3.onnx", [], "(Max, domain ai.onnx, opset 13): 3 inputs not supported"),
    ("bad_slice_empty.onnx", [], "(Slice, domain ai.onnx, opset 13): the slice of dimension 2 "
                                 "is empty"),
    ("bad_lstm_activation.onnx", [], "(LSTM, domain ai.onnx, opset 13): activations [Sigmoid, "
                                     "Relu, Tanh] not supported"),
    ("bad_lstm_sequence_lens.onnx", [], "(LSTM, domain ai.onnx, opset 13): sequence_lens (input "
                                        "4) is supported only as a constant equal to the sequence "
                                        "length"),
]


def check_refusals(args):
    """Each bad model: exit status 2, the message, nothing written; a fixed shape compiles."""
    ok = True
    for name, extra, said in REFUSED:
        program = os.path.join(args.work, name + ".mote")
        if os.path.exists(program):
            os.remove(program)
        r = subprocess.run([args.mote, "compile", os.path.join(args.work, name), "-o", program]
                           + extra, capture_output=True, text=True)
        good = r.returncode == 2 and said in r.stderr and not os.path.exists(program)
        print(f"{name}: exit {r.returncode}: {r.stderr.strip()}")
        ok = ok and good
    fixed = os.path.join(args.work, "bad_dynamic-fixed.mote")
    r = subprocess.run([args.mote, "compile", os.path.join(args.work, "bad_dynamic.onnx"),
                        "--input-shape", "input=1,8,6,6", "-o", fixed], capture_output=True,
                       text=True)
    print(f"bad_dynamic.onnx --input-shape input=1,8,6,6: exit {r.returncode}")
    return ok and r.returncode == 0 and os.path.exists(fixed)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mote", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--torch", action="store_true")
    parser.add_argument("--target", action="append")
    parser.add_argument("--model", action="append")
    parser.add_argument("--firmware", action="append", default=[],
                        help="also run each program under QEMU on this CPU (mote validate: every "
                             "operator's output equal to the host's)")
    parser.add_argument("--field", action="append", default=[],
                        help="a quantized .onnx model from elsewhere: report how its outputs "
                             "compare with ONNX Runtime's (nothing else runs)")
    parser.add_argument("--write-graphs", action="store_true",
                        help="with --field: first write the test graphs into --work, to report "
                             "on some of them as on a model from elsewhere")
    parser.add_argument("--field-input",
                        help="the --field model's first input as raw bytes of its type (a "
                             "real image, say), instead of random values")
    args = parser.parse_args()
    args.target = args.target or ["cortex-m0plus", "cortex-m4", "cortex-m55"]
    try:
        import onnx  # noqa: F401
    except ImportError:
        print("skipped: python3-onnx is not installed")
        return SKIP
    module = ort_module()
    if shutil.which("node") is None or module is None:
        print("skipped: Node.js or onnxruntime-node is missing (scripts/setup.sh installs them)")
        return SKIP
    os.makedirs(args.work, exist_ok=True)
    if args.field:
        if args.write_graphs:
            run([sys.executable, os.path.join(HERE, "make_qdq_models.py"), args.work])
        for path in args.field:
            check_field_model(args, module, path)
        return 0
    run([sys.executable, os.path.join(HERE, "make_qdq_models.py"), args.work])
    if args.torch:
        try:
            import torch  # noqa: F401
        except ImportError:
            print("skipped: python3-torch is not installed")
            return SKIP
        run([sys.executable, os.path.join(HERE, "make_torch_models.py"), args.work])
    names = args.model or sorted(f[:-5] for f in os.listdir(args.work)
                                 if f.endswith(".json") and os.path.exists(
                                     os.path.join(args.work, f[:-5] + ".onnx")))
    failed = [n for n in names if not check_model(args, module, n)]
    if not args.torch and not args.model and not check_refusals(args):
        failed.append("refusals")
    if failed:
        print("FAILED: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
