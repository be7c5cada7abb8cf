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
