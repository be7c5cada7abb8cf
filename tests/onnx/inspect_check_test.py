#!/usr/bin/env python3
"""`mote inspect --check MODEL.onnx`: one verdict per ONNX node, and the same verdict as compile.

Writes the QDQ test graphs (make_qdq_models.py) and one with two different refusals (Hardmax, which
Mote lacks, and a ConvTranspose with dilations), then checks:
- that model: both reasons, the nodes downstream of each named as blocked by it, ok for the
  rest, exit status 2, in the text and in the JSON;
- a model Mote takes: every node ok, exit status 0;
- every test graph: --check's exit status equals compile's, and compile's message is one of
  --check's problems; whole-model problems (not ONNX, float, dynamic shape) stay one problem.
Exit 77 (skipped) without python3-onnx.

Usage: inspect_check_test.py --mote BUILD/mote --work DIR
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def mote(args, *extra):
    r = subprocess.run([args.mote, *extra], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def write_two_refusals(out_dir):
    """Conv (ok); Hardmax (refused) -> Q -> DQ -> Add (blocked); ConvTranspose with dilations
    (refused) -> Q -> DQ (blocked); MaxPool (ok). Returns the model's path."""
    import numpy as np  # noqa: F401  (make_qdq_models needs it)
    import onnx
    from onnx import TensorProto, helper
    sys.path.insert(0, HERE)
    from make_qdq_models import Qdq

    g = Qdq("check_two_refusals", [1, 8, 6, 6])
    c = g.conv(g.x, 8, 8, 3, activation="relu")
    s = g.op("Add", [g.op("Hardmax", [c]), c])
    w, _ = g.weights((8, 8, 3, 3), 72, per_channel=False)
    t = g.op("ConvTranspose", [c, w], kernel_shape=[3, 3], dilations=[2, 2])
    p = g.op("MaxPool", [c], kernel_shape=[2, 2], strides=[2, 2])
    g.save(out_dir, s, g.scale, [1, 8, 6, 6])
    path = os.path.join(out_dir, "check_two_refusals.onnx")
    model = onnx.load(path)
    model.graph.output.append(helper.make_tensor_value_info(t, TensorProto.FLOAT, [1, 8, 10, 10]))
    model.graph.output.append(helper.make_tensor_value_info(p, TensorProto.FLOAT, [1, 8, 3, 3]))
    for i, node in enumerate(model.graph.node):
        node.name = f"{node.op_type.lower()}{i}"
    onnx.save(model, path)
    os.remove(os.path.join(out_dir, "check_two_refusals.json"))
    return path


class Checks:
    def __init__(self):
        self.failed = []

    def expect(self, good, what):
        if not good:
            self.failed.append(what)
            print("FAILED: " + what)


def check_two_refusals(args, t, path):
    status, out, err = mote(args, "inspect", "--check", path)
    print(out + err)
    t.expect(status == 2, f"two refusals: exit status {status}, not 2")
    lines = {}
    for line in out.splitlines():
        head = line.split()
        if head and head[0].isdigit():
            lines[int(head[0])] = line
    status_json, text, _ = mote(args, "inspect", "--check", "--json", "-", path)
    t.expect(status_json == 2, f"two refusals --json: exit status {status_json}, not 2")
    report = json.loads(text)
    nodes = report["operators"]
    t.expect(report["compiles"] is False, "two refusals: JSON compiles is not false")
    t.expect(len(nodes) == len(lines), f"{len(nodes)} nodes in the JSON, {len(lines)} lines")
    t.expect([n["index"] for n in nodes] == list(range(len(nodes))), "not one entry per node")
    by_type = {}
    for n in nodes:
        by_type.setdefault(n["type"], []).append(n)
    hardmax, = by_type["Hardmax"]
    deconv, = by_type["ConvTranspose"]
    refused = [n for n in nodes if not n["compiles"] and "blocked_by" not in n]
    t.expect([n["index"] for n in refused] == [hardmax["index"], deconv["index"]],
             f"refused nodes {[n['index'] for n in refused]}, not Hardmax and ConvTranspose")
    t.expect("(Hardmax, domain ai.onnx, opset 13): not supported" in hardmax.get("problem", ""),
             "Hardmax's problem: " + hardmax.get("problem", ""))
    t.expect("cannot compile: not supported; Mote reads" in lines[hardmax["index"]],
             "Hardmax's line: " + lines[hardmax["index"]])
    t.expect("cannot compile: dilations [2,2] not supported" in lines[deconv["index"]],
             "ConvTranspose's line: " + lines[deconv["index"]])
    t.expect("ConvTranspose 'convtranspose" in lines[deconv["index"]] and
             "(ai.onnx, opset 13)" in lines[deconv["index"]],
             "the line names the node's type, name, domain and opset: " + lines[deconv["index"]])
    # Downstream of each refusal: blocked by it, through any number of nodes.
    add, = by_type["Add"]
    t.expect(add.get("blocked_by") == hardmax["index"], f"Add: {add}")
    t.expect("not checked: input " in lines[add["index"]] and
             f"depends on node {hardmax['index']} '{hardmax['name']}' (Hardmax)" in lines[add["index"]],
             "Add's line: " + lines[add["index"]])
    after_deconv = [n for n in nodes if n.get("blocked_by") == deconv["index"]]
    t.expect(len(after_deconv) == 2, f"{len(after_deconv)} nodes blocked by ConvTranspose, not 2")
    # The rest compiles: the Conv (its Relu and QuantizeLinear read with it), the MaxPool.
    conv, = by_type["Conv"]
    pool, = by_type["MaxPool"]
    t.expect(conv["compiles"] and "CONV_2D" in conv["becomes"], f"Conv: {conv}")
    t.expect(pool["compiles"] and pool["becomes"] == ["MAX_POOL_2D"], f"MaxPool: {pool}")
    t.expect(lines[pool["index"]].endswith("ok: MAX_POOL_2D"), lines[pool["index"]])
    relu, = by_type["Relu"]
    t.expect(relu.get("folded_into") == conv["index"], f"Relu: {relu}")
    for n in nodes:
        if n["compiles"]:
            t.expect(" ok" in lines[n["index"]], "a node that compiles: " + lines[n["index"]])
        elif "blocked_by" in n:
            t.expect(n["blocked_by"] in (hardmax["index"], deconv["index"]), f"blocked: {n}")
    t.expect(report["problems"] == [], f"model problems: {report['problems']}")
    blocked = len(nodes) - len(refused) - sum(n["compiles"] for n in nodes)
    t.expect(f"verdict: 2 of {len(nodes)} nodes cannot compile, {blocked} more not checked" in out,
             "the verdict line")


def check_all_ok(args, t, path):
    status, out, err = mote(args, "inspect", "--check", path)
    t.expect(status == 0, f"{path}: exit status {status}, not 0: {out}{err}")
    rows = [line for line in out.splitlines() if line.split() and line.split()[0].isdigit()]
    t.expect(rows and all(" ok" in r for r in rows), f"{path}: not every node ok:\n{out}")
    t.expect("verdict: all " in out, f"{path}: no verdict line:\n{out}")
    status, text, _ = mote(args, "inspect", "--check", "--json", "-", path)
    report = json.loads(text)
    t.expect(status == 0 and report["compiles"] and all(n["compiles"] for n in report["operators"])
             and len(report["operators"]) == len(rows), f"{path}: the JSON: {text[:400]}")


def check_same_verdict_as_compile(args, t):
    """Every test graph: --check refuses what compile refuses, and names compile's reason."""
    program = os.path.join(args.work, "check.mote")
    for name in sorted(f for f in os.listdir(args.work) if f.endswith(".onnx")):
        path = os.path.join(args.work, name)
        compiled, _, err = mote(args, "compile", path, "-o", program)
        checked, text, _ = mote(args, "inspect", "--check", "--json", "-", path)
        t.expect(checked == compiled, f"{name}: compile exit {compiled}, --check exit {checked}")
        if compiled == 0:
            continue
        said = err.strip().splitlines()[-1].split(": ", 2)[-1]
        said = said.split(" (mote inspect --check")[0]
        report = json.loads(text)
        problems = [n.get("problem", "") for n in report["operators"]] + report["problems"]
        t.expect(any(said in p for p in problems if p), f"{name}: '{said}' not among {problems}")
        whole = name in ("bad_text.onnx", "bad_truncated.onnx", "float_conv.onnx",
                         "bad_dynamic.onnx")
        if whole:  # a whole-model problem stays one problem
            t.expect(report["operators"] == [] and len(report["problems"]) == 1,
                     f"{name}: {text[:300]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mote", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    try:
        import onnx  # noqa: F401
    except ImportError:
        print("skipped: python3-onnx is not installed")
        return SKIP
    os.makedirs(args.work, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(HERE, "make_qdq_models.py"), args.work],
                   check=True)
    t = Checks()
    check_two_refusals(args, t, write_two_refusals(args.work))
    for name in ("qdq_cnn", "qop_cnn", "qdq_conv1d_sequence"):
        check_all_ok(args, t, os.path.join(args.work, name + ".onnx"))
    check_same_verdict_as_compile(args, t)
    _, help_text, _ = mote(args, "inspect", "--help")
    t.expect("node (.onnx)" in help_text and "--check model.onnx" in help_text,
             "inspect --help does not say --check reads .onnx")
    if t.failed:
        print(f"FAILED: {len(t.failed)} checks")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
