"""The ONNX operators of the calibrated test graphs in numpy, as ONNX defines them (float32, NCHW):
used to calibrate scales on the float graph while it is built (make_detector_models.py) and to
recompute one quantized operator from its quantized inputs (onnx_layers.py), which is what ONNX
Runtime computes with graph optimisation disabled: DequantizeLinear, the float operator,
QuantizeLinear rounding half to even."""
import numpy as np


def conv(x, w, b=None, strides=(1, 1), pads=(0, 0, 0, 0), group=1, **_):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (x.shape[2] - kh) // strides[0] + 1
    ow = (x.shape[3] - kw) // strides[1] + 1
    # Columns [n, c, kh, kw, oh, ow] of the padded input.
    cols = np.empty((n, c, kh, kw, oh, ow), np.float64)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = x[:, :, i:i + strides[0] * oh:strides[0], j:j + strides[1] * ow:strides[1]]
    og = o // group
    y = np.empty((n, o, oh, ow), np.float64)
    for g in range(group):
        y[:, g * og:(g + 1) * og] = np.einsum(
            "nckluv,ockl->nouv", cols[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og].astype(np.float64))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y.astype(np.float32)


def resize(x, scales, mode="nearest", coordinate_transformation_mode="half_pixel", **_):
    """Integer upscales: nearest (asymmetric, floor) or linear (half_pixel)."""
    n, c, h, w = x.shape
    oh, ow = int(h * scales[2]), int(w * scales[3])
    if mode == "nearest":
        return x[:, :, (np.arange(oh) * h) // oh][:, :, :, (np.arange(ow) * w) // ow]

    def axis(out, size):
        src = np.clip((np.arange(out) + 0.5) * size / out - 0.5, 0, size - 1)
        lo = np.floor(src).astype(int)
        hi = np.minimum(lo + 1, size - 1)
        return lo, hi, (src - lo).astype(np.float32)
    ly, hy, fy = axis(oh, h)
    lx, hx, fx = axis(ow, w)
    top = x[:, :, ly] * (1 - fy)[:, None] + x[:, :, hy] * fy[:, None]
    return (top[:, :, :, lx] * (1 - fx) + top[:, :, :, hx] * fx).astype(np.float32)


def average_pool(x, kernel_shape, strides, pads=(0, 0, 0, 0), count_include_pad=0, **_):
    ones = np.ones((1, 1) + x.shape[2:], np.float32)
    k = np.ones((1, 1) + tuple(kernel_shape), np.float32)
    n, c = x.shape[:2]
    total = conv(x.reshape(n * c, 1, *x.shape[2:]), k, strides=strides, pads=pads)
    count = conv(ones, k, strides=strides, pads=pads) if not count_include_pad else np.prod(kernel_shape)
    return (total / count).reshape(n, c, *total.shape[2:]).astype(np.float32)


def hard_swish(x):
    return (x * np.clip(x + 3, 0, 6) / 6).astype(np.float32)


def sigmoid(x):
    return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32)


def quantize(x, scale, zero_point, lo=-128, hi=127):
    """ONNX's QuantizeLinear: x / scale in float32, rounded half to even, plus the zero point."""
    return np.clip(np.rint(x.astype(np.float32) / np.float32(scale)) + zero_point, lo, hi)


def dequantize(q, scale, zero_point):
    return ((q.astype(np.float32) - np.float32(zero_point)) * np.float32(scale)).astype(np.float32)


def run_op(op_type, inputs, attrs):
    """One float operator of the graphs make_detector_models.py writes."""
    if op_type == "Conv":
        return conv(*inputs, **attrs)
    if op_type == "Relu":
        return np.maximum(inputs[0], 0)
    if op_type == "Clip":
        return np.clip(inputs[0], inputs[1], inputs[2])
    if op_type == "Add":
        return (inputs[0] + inputs[1]).astype(np.float32)
    if op_type == "Resize":
        return resize(inputs[0], inputs[2], **attrs)
    if op_type == "Concat":
        return np.concatenate(inputs, axis=attrs["axis"])
    if op_type == "Transpose":
        return np.transpose(inputs[0], attrs["perm"])
    if op_type == "Reshape":
        return inputs[0].reshape([d if d != 0 else inputs[0].shape[i]
                                  for i, d in enumerate(inputs[1])])
    if op_type == "Sigmoid":
        return sigmoid(inputs[0])
    if op_type == "HardSwish":
        return hard_swish(inputs[0])
    if op_type == "AveragePool":
        return average_pool(inputs[0], **attrs)
    if op_type == "GlobalAveragePool":
        return inputs[0].mean(axis=(2, 3), keepdims=True, dtype=np.float64).astype(np.float32)
    raise ValueError(f"{op_type} not implemented")


def max_pool(x, kernel_shape, strides=None, pads=None, **_):
    kh, kw = kernel_shape
    sh, sw = strides or (1, 1)
    p = pads or (0, 0, 0, 0)
    x = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])), constant_values=-np.inf)
    oh, ow = (x.shape[2] - kh) // sh + 1, (x.shape[3] - kw) // sw + 1
    y = np.full(x.shape[:2] + (oh, ow), -np.inf, np.float32)
    for i in range(kh):
        for j in range(kw):
            y = np.maximum(y, x[:, :, i:i + sh * oh:sh, j:j + sw * ow:sw])
    return y


def softmax(x, axis):
    e = np.exp(x.astype(np.float64) - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float32)


def _per_axis(v, rank, axis):
    """A DequantizeLinear or QuantizeLinear parameter broadcast along `axis` (a scalar as is)."""
    if v.ndim == 0 or v.size == 1:
        return v.reshape(())
    shape = [1] * rank
    shape[axis] = -1
    return v.reshape(shape)


def run_graph(model, feeds):
    """The whole graph in numpy as ONNX defines each operator (float32 tensors, convolution and
    matrix sums in float64, QuantizeLinear rounding half to even): an implementation of the
    model beside ONNX Runtime's two. `feeds`: the graph inputs by name. Returns the outputs in
    order. ValueError for an operator or attribute it does not implement."""
    from onnx import helper, numpy_helper
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 13)
    values = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    values.update(feeds)
    types = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32, 7: np.int64, 9: np.bool_}
    for node in model.graph.node:
        xs = [values[i] if i else None for i in node.input]
        a = {t.name: helper.get_attribute_value(t) for t in node.attribute}
        a = {k: v.decode() if isinstance(v, bytes) else v for k, v in a.items()}
        t = node.op_type
        if node.domain not in ("", "ai.onnx"):
            raise ValueError(f"{node.domain}.{t} not implemented")
        if t == "DequantizeLinear":
            x = xs[0]
            zp = xs[2] if len(xs) > 2 and xs[2] is not None else np.zeros((), x.dtype)
            axis = a.get("axis", 1) % max(x.ndim, 1)
            y = dequantize(x, _per_axis(xs[1], x.ndim, axis), _per_axis(zp, x.ndim, axis))
        elif t == "QuantizeLinear":
            x = xs[0]
            zp = xs[2] if len(xs) > 2 and xs[2] is not None else np.zeros((), np.uint8)
            axis = a.get("axis", 1) % max(x.ndim, 1)
            info = np.iinfo(zp.dtype)
            y = quantize(x, _per_axis(xs[1], x.ndim, axis), _per_axis(zp, x.ndim, axis),
                         info.min, info.max).astype(zp.dtype)
        elif t in ("Identity", "Dropout"):
            y = xs[0]
        elif t == "Constant":
            y = numpy_helper.to_array(a["value"])
        elif t == "Mul":
            y = (xs[0] * xs[1]).astype(xs[0].dtype)
        elif t == "Sub":
            y = (xs[0] - xs[1]).astype(xs[0].dtype)
        elif t == "Add":
            y = (xs[0] + xs[1]).astype(xs[0].dtype)
        elif t == "Div":
            with np.errstate(divide="ignore", invalid="ignore"):
                y = (xs[0] / xs[1]).astype(xs[0].dtype)
        elif t == "Pow":
            y = np.power(xs[0], xs[1].astype(xs[0].dtype)).astype(xs[0].dtype)
        elif t == "Clip":
            lo = xs[1] if len(xs) > 1 and xs[1] is not None else a.get("min", -np.inf)
            hi = xs[2] if len(xs) > 2 and xs[2] is not None else a.get("max", np.inf)
            y = np.clip(xs[0], lo, hi).astype(xs[0].dtype)
        elif t == "Softmax":
            axis = a.get("axis", -1 if opset >= 13 else 1)
            if opset >= 13:
                y = softmax(xs[0], axis)
            else:  # the input flattened to 2-D at axis
                flat = xs[0].reshape(int(np.prod(xs[0].shape[:axis])), -1)
                y = softmax(flat, 1).reshape(xs[0].shape)
        elif t == "Pad":
            if a.get("mode", "constant") != "constant":
                raise ValueError(f"Pad mode {a['mode']} not implemented")
            pads = xs[1] if len(xs) > 1 else a["pads"]
            value = xs[2] if len(xs) > 2 and xs[2] is not None else 0
            r = xs[0].ndim
            if len(xs) > 3 and xs[3] is not None:  # opset 18's axes: their pads only
                full = np.zeros(2 * r, np.int64)
                for i, axis in enumerate(int(v) % r for v in xs[3]):
                    full[axis], full[axis + r] = pads[i], pads[i + len(xs[3])]
                pads = full
            y = np.pad(xs[0], [(int(pads[k]), int(pads[k + r])) for k in range(r)],
                       constant_values=value)
        elif t == "Shape":
            y = np.array(xs[0].shape, np.int64)
        elif t == "Gather":
            y = np.take(xs[0], xs[1], axis=a.get("axis", 0))
        elif t == "Cast":
            y = xs[0].astype(types[a["to"]])
        elif t == "Slice":
            starts, ends = xs[1], xs[2]
            axes = xs[3] if len(xs) > 3 and xs[3] is not None else range(len(starts))
            steps = xs[4] if len(xs) > 4 and xs[4] is not None else [1] * len(starts)
            index = [slice(None)] * xs[0].ndim
            for s, e, ax, st in zip(starts, ends, axes, steps):
                index[int(ax)] = slice(int(s), int(max(min(e, 2**62), -2**62)), int(st))
            y = xs[0][tuple(index)]
        elif t == "Tile":
            y = np.tile(xs[0], xs[1])
        elif t in ("Squeeze", "Unsqueeze"):
            axes = xs[1] if len(xs) > 1 and xs[1] is not None else a.get("axes")
            if t == "Squeeze":
                y = np.squeeze(xs[0], axis=None if axes is None else tuple(int(v) for v in axes))
            else:
                y = xs[0]
                rank = y.ndim + len(axes)
                for ax in sorted(int(v) % rank for v in axes):
                    y = np.expand_dims(y, ax)
        elif t == "Flatten":
            axis = a.get("axis", 1)
            y = xs[0].reshape(int(np.prod(xs[0].shape[:axis])), -1)
        elif t in ("Gemm", "MatMul"):
            p, q = xs[0].astype(np.float64), xs[1].astype(np.float64)
            if a.get("transA", 0):
                p = p.T
            if a.get("transB", 0):
                q = q.T
            y = a.get("alpha", 1.0) * (p @ q)
            if len(xs) > 2 and xs[2] is not None:
                y = y + a.get("beta", 1.0) * xs[2]
            y = y.astype(np.float32)
        elif t in ("ArgMax", "ArgMin") and not a.get("select_last_index", 0):
            pick = np.argmax if t == "ArgMax" else np.argmin
            y = pick(xs[0], axis=a.get("axis", 0), keepdims=bool(a.get("keepdims", 1)))
        elif t == "MaxPool" and xs[0].ndim == 4 and a.get("auto_pad", "NOTSET") == "NOTSET" \
                and a.get("ceil_mode", 0) == 0 and all(d == 1 for d in a.get("dilations", [1, 1])):
            y = max_pool(xs[0], **a)
        elif t == "Resize":
            form = (a.get("mode", "nearest"), a.get("coordinate_transformation_mode", "half_pixel"))
            if len(xs) < 3 or xs[2] is None or xs[2].size == 0 or form not in (
                    ("linear", "half_pixel"), ("nearest", "asymmetric")):
                raise ValueError(f"Resize {form} or by sizes not implemented")
            y = resize(xs[0], xs[2], mode=form[0])
        else:
            if t in ("Conv", "AveragePool", "MaxPool") and (
                    xs[0].ndim != 4 or any(d != 1 for d in a.get("dilations", [1, 1]))
                    or a.get("auto_pad", "NOTSET") != "NOTSET"):
                raise ValueError(f"{t} other than 2-D, undilated, explicit pads not implemented")
            y = run_op(t, xs, a)
        values[node.output[0]] = y
    return [values[o.name] for o in model.graph.output]
