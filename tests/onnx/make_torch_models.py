#!/usr/bin/env python3
"""Writes fake-quantized (quantization-aware) PyTorch models as ONNX with torch.onnx.export
(opset 13), as a PyTorch user does before `mote compile`: a DS-CNN keyword model, a
MobileNetV2-style network with residual additions, a MobileNetV3-style one with Hardswish and
squeeze-excite gates, a small CNN ending in Gemm, a 1-D audio model, ShuffleNetV2 units
(chunk, cat, the channel shuffle written with x.size()) and a small U-Net ending in
torch.argmax (segmentation).

Usage: make_torch_models.py OUT_DIR   (NAME.onnx and NAME.json per model, as
make_qdq_models.py). Eager-mode QAT (torch.ao.quantization): Conv+ReLU fused, uint8 activations,
int8 weights (per channel or per tensor), observers run on random batches, then frozen.
"""
import json
import os
import sys

import onnx
import torch
from torch import nn
from torch.ao import quantization as tq


def qconfig(per_channel):
    weight_observer = (tq.MovingAveragePerChannelMinMaxObserver if per_channel
                       else tq.MovingAverageMinMaxObserver)
    return tq.QConfig(
        activation=tq.FakeQuantize.with_args(observer=tq.MovingAverageMinMaxObserver,
                                             quant_min=0, quant_max=255, dtype=torch.quint8),
        weight=tq.FakeQuantize.with_args(
            observer=weight_observer, quant_min=-128, quant_max=127, dtype=torch.qint8,
            qscheme=torch.per_channel_symmetric if per_channel else torch.per_tensor_symmetric))


class ConvReLU(nn.Sequential):
    def __init__(self, cin, cout, kernel, stride=1, padding=0, groups=1, relu=True):
        layers = [nn.Conv2d(cin, cout, kernel, stride, padding, groups=groups)]
        if relu:
            layers.append(nn.ReLU())
        super().__init__(*layers)


class DsCnn(nn.Module):
    """MLPerf Tiny's DS-CNN shape (smaller): [1,1,49,10] MFCC features, 12 keywords."""

    def __init__(self, width=32, blocks=3):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.stem = ConvReLU(1, width, (10, 4), stride=2, padding=(5, 1))
        self.blocks = nn.Sequential(*[nn.Sequential(
            ConvReLU(width, width, 3, padding=1, groups=width), ConvReLU(width, width, 1))
            for _ in range(blocks)])
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(width, 12)

    def forward(self, x):
        x = self.blocks(self.stem(self.quant(x)))
        return self.dequant(self.fc(torch.flatten(self.pool(x), 1)))


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.residual = stride == 1 and cin == cout
        self.body = nn.Sequential(
            ConvReLU(cin, hidden, 1), ConvReLU(hidden, hidden, 3, stride, 1, groups=hidden),
            ConvReLU(hidden, cout, 1, relu=False))
        self.add = nn.quantized.FloatFunctional()

    def forward(self, x):
        return self.add.add(x, self.body(x)) if self.residual else self.body(x)


class MobileNetV2(nn.Module):
    """MobileNetV2's inverted residual blocks (1x1 expand, 3x3 depthwise, 1x1 project, residual
    additions) on a [1,3,32,32] image, 10 classes."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.stem = ConvReLU(3, 16, 3, 2, 1)
        self.blocks = nn.Sequential(
            InvertedResidual(16, 16, 1, 1), InvertedResidual(16, 24, 2, 4),
            InvertedResidual(24, 24, 1, 4), InvertedResidual(24, 32, 2, 4),
            InvertedResidual(32, 32, 1, 4))
        self.head = ConvReLU(32, 64, 1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool(self.head(self.blocks(self.stem(self.quant(x)))))
        return self.dequant(self.fc(torch.flatten(x, 1)))


class SqueezeExcite(nn.Module):
    """torchvision's quantizable SqueezeExcitation: pool, 1x1 ReLU, 1x1, Hardsigmoid, the gate
    times the input (FloatFunctional)."""

    def __init__(self, channels, squeezed):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = ConvReLU(channels, squeezed, 1)
        self.fc2 = nn.Conv2d(squeezed, channels, 1)
        self.gate = nn.Hardsigmoid()
        self.mul = nn.quantized.FloatFunctional()

    def forward(self, x):
        return self.mul.mul(self.gate(self.fc2(self.fc1(self.pool(x)))), x)


class Bneck(nn.Module):
    """MobileNetV3's block: 1x1 expand, k x k depthwise, each ReLU or Hardswish, an optional
    squeeze-excite, 1x1 project, a residual addition where the shape allows."""

    def __init__(self, cin, hidden, cout, k, stride, se, hardswish):
        super().__init__()
        act = nn.Hardswish if hardswish else nn.ReLU
        layers = [nn.Conv2d(cin, hidden, 1), act(),
                  nn.Conv2d(hidden, hidden, k, stride, k // 2, groups=hidden), act()]
        if se:
            layers.append(SqueezeExcite(hidden, max(8, hidden // 4)))
        layers.append(nn.Conv2d(hidden, cout, 1))
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout
        self.add = nn.quantized.FloatFunctional()

    def forward(self, x):
        return self.add.add(x, self.body(x)) if self.residual else self.body(x)


class MobileNetV3(nn.Module):
    """MobileNetV3-Small's blocks (smaller) on a [1,3,32,32] image: Hardswish (HardSigmoid times
    its input at opset 13), squeeze-excite gates (HardSigmoid of another value), residuals, a
    Linear head with a Hardswish between, 10 classes."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.Hardswish())
        self.blocks = nn.Sequential(
            Bneck(16, 16, 16, 3, 2, True, False), Bneck(16, 72, 24, 3, 2, False, False),
            Bneck(24, 88, 24, 3, 1, False, False), Bneck(24, 96, 40, 5, 2, True, True),
            Bneck(40, 240, 40, 5, 1, True, True))
        self.head = nn.Sequential(nn.Conv2d(40, 96, 1), nn.Hardswish())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Sequential(nn.Linear(96, 64), nn.Hardswish(), nn.Linear(64, 10))

    def forward(self, x):
        x = self.pool(self.head(self.blocks(self.stem(self.quant(x)))))
        return self.dequant(self.fc(torch.flatten(x, 1)))


class CnnGemm(nn.Module):
    """Two Conv+ReLU+MaxPool stages, Flatten over a 4x4 map, two Linear layers (Gemm)."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.features = nn.Sequential(ConvReLU(1, 8, 3, padding=1), nn.MaxPool2d(2),
                                      ConvReLU(8, 16, 3, padding=1), nn.MaxPool2d(2))
        self.fc1 = nn.Sequential(nn.Linear(16 * 4 * 4, 32), nn.ReLU())
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = torch.flatten(self.features(self.quant(x)), 1)
        return self.dequant(self.fc2(self.fc1(x)))


class FakeQuantConv1d(nn.Conv1d):
    """Conv1d (+ ReLU) fake-quantized by hand: PyTorch 1.13's eager QAT quantizes Conv1d only
    fused with BatchNorm1d, so an audio model's own QAT code calls torch.fake_quantize_* itself:
    int8 weights per output channel, the uint8 output's scale from a calibration pass."""

    def __init__(self, *args, relu=True, **kwargs):
        super().__init__(*args, **kwargs)
        self.relu, self.calibrating, self.peak = relu, True, torch.tensor(1e-3)
        self.w_scale = self.w_zero = self.out_scale = None

    def freeze(self):
        """Fixes the quantization: the weights' scales and the output's, as constants."""
        self.calibrating = False
        self.w_scale = (self.weight.detach().abs().amax(dim=(1, 2)).clamp(min=1e-6) / 127).float()
        self.w_zero = torch.zeros(self.weight.shape[0], dtype=torch.int32)
        self.out_scale = float(self.peak) / (255 if self.relu else 127.5)

    def forward(self, x):
        w = self.weight
        if not self.calibrating:
            w = torch.fake_quantize_per_channel_affine(w, self.w_scale, self.w_zero, 0, -128, 127)
        y = nn.functional.conv1d(x, w, self.bias, self.stride, self.padding, self.dilation,
                                 self.groups)
        y = torch.relu(y) if self.relu else y
        if self.calibrating:
            self.peak = torch.maximum(self.peak, y.detach().abs().max())
            return y
        return torch.fake_quantize_per_tensor_affine(y, self.out_scale, 0 if self.relu else 128,
                                                     0, 255)


class Audio1d(nn.Module):
    """A 1-D audio classifier on a [1,1,128] waveform: strided Conv1d, a depthwise-separable
    Conv1d pair, MaxPool1d, Conv1d, global average pooling, then a 1x1 Conv1d as classifier
    (the output [1,8,1])."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            FakeQuantConv1d(1, 16, 9, 2, 4), FakeQuantConv1d(16, 16, 3, 1, 1, groups=16),
            FakeQuantConv1d(16, 32, 1), nn.MaxPool1d(2), FakeQuantConv1d(32, 32, 3, 1, 1))
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.classifier = FakeQuantConv1d(32, 8, 1, relu=False)
        self.input_scale = 1.0 / 127.5

    def forward(self, x):
        x = torch.fake_quantize_per_tensor_affine(x, self.input_scale, 128, 0, 255)
        x = self.pool(self.features(x))
        if not self.classifier.calibrating:
            x = torch.fake_quantize_per_tensor_affine(x, self.features[-1].out_scale, 0, 0, 255)
        return self.classifier(x)


def export_audio1d(out_dir):
    torch.manual_seed(1)
    model = Audio1d().eval()
    with torch.no_grad():
        for _ in range(8):
            model(torch.rand(1, 1, 128) * 2 - 1)
        for m in model.modules():
            if isinstance(m, FakeQuantConv1d):
                m.freeze()
    path = os.path.join(out_dir, "torch_audio1d.onnx")
    torch.onnx.export(model, torch.rand(1, 1, 128), path, opset_version=13,
                      input_names=["input"], output_names=["output"])
    scalar_quantization(path)
    with open(os.path.join(out_dir, "torch_audio1d.json"), "w") as f:
        json.dump({"input_shape": [1, 1, 128], "input_type": "float32", "input_range": [-1.0, 1.0],
                   "output_scale": model.classifier.out_scale, "transposes": 0}, f)


class ShuffleNetV2(nn.Module):
    """ShuffleNetV2's stride-1 unit twice: chunk (Split), a branch of 1x1, depthwise 3x3 and 1x1
    convolutions, cat, and the channel shuffle written with x.size() (Shape arithmetic, a 5-D
    Reshape and Transpose)."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.stem = ConvReLU(3, 16, 3, 2, 1)
        self.branches = nn.ModuleList([nn.Sequential(
            ConvReLU(8, 8, 1), ConvReLU(8, 8, 3, 1, 1, groups=8, relu=False), ConvReLU(8, 8, 1))
            for _ in range(2)])
        self.cats = nn.ModuleList([nn.quantized.FloatFunctional() for _ in range(2)])
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    @staticmethod
    def shuffle(x):
        b, c, h, w = x.size()
        return x.view(b, 2, c // 2, h, w).transpose(1, 2).contiguous().view(b, c, h, w)

    def forward(self, x):
        x = self.stem(self.quant(x))
        for branch, cat in zip(self.branches, self.cats):
            kept, changed = x.chunk(2, dim=1)
            x = self.shuffle(cat.cat([kept, branch(changed)], dim=1))
        return self.dequant(self.fc(torch.flatten(self.pool(x), 1)))


class TinyUNet(nn.Module):
    """A segmentation network: two encoder convolutions (the second of stride 2), nn.Upsample
    (nearest) and a skip connection (cat), a decoder convolution, a 1x1 classifier of 4 classes
    and the class map, torch.argmax over the channels (int64 indices, keepdim)."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.enc1 = ConvReLU(3, 8, 3, 1, 1)
        self.enc2 = ConvReLU(8, 16, 3, 2, 1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.cat = nn.quantized.FloatFunctional()
        self.dec = ConvReLU(24, 8, 3, 1, 1)
        self.head = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        e1 = self.enc1(self.quant(x))
        d = self.dec(self.cat.cat([self.up(self.enc2(e1)), e1], dim=1))
        return torch.argmax(self.dequant(self.head(d)), dim=1, keepdim=True)


def fuse(model):
    for module in list(model.modules()):
        if isinstance(module, ConvReLU) and len(module) == 2:
            tq.fuse_modules(module, [["0", "1"]], inplace=True)
        if type(module) is nn.Sequential and len(module) == 2 and \
                isinstance(module[0], nn.Linear) and isinstance(module[1], nn.ReLU):
            tq.fuse_modules(module, [["0", "1"]], inplace=True)


def export(model, shape, name, out_dir, per_channel, transposes, indices=False):
    """`indices`: the output is int64 class indices (compared exactly, output_scale 0)."""
    torch.manual_seed(1)
    model.eval()
    fuse(model)
    model.train()
    model.qconfig = qconfig(per_channel)
    tq.prepare_qat(model, inplace=True)
    with torch.no_grad():
        for _ in range(8):
            model(torch.rand(shape) * 2 - 1)
    model.apply(tq.disable_observer)
    model.eval()
    path = os.path.join(out_dir, name + ".onnx")
    torch.onnx.export(model, torch.rand(shape), path, opset_version=13,
                      input_names=["input"], output_names=["output"])
    scalar_quantization(path)
    # The output's step: the scale of the last fake quantizer before DeQuantStub.
    meta = {"input_shape": list(shape), "input_type": "float32", "input_range": [-1.0, 1.0],
            "output_scale": float(last_activation_scale(model)), "transposes": transposes}
    if indices:
        meta.update(output_type="int64", output_scale=0)
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump(meta, f)


def scalar_quantization(path):
    """PyTorch writes per-tensor scales and zero points as [1] tensors; ONNX Runtime's optimiser
    (QLinearAdd fusion) refuses those, so make them scalars, as ONNX Runtime's quantizer writes."""
    model = onnx.load(path)
    tensors = {t.name: t for t in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "Constant":
            tensors[node.output[0]] = node.attribute[0].t
    for node in model.graph.node:
        if node.op_type not in ("QuantizeLinear", "DequantizeLinear"):
            continue
        for name in node.input[1:]:
            t = tensors.get(name)
            if t is not None and list(t.dims) == [1]:
                del t.dims[:]
    onnx.save(model, path)


def last_activation_scale(model):
    last = None
    for module in model.modules():
        if isinstance(module, tq.FakeQuantize) and module.dtype == torch.quint8:
            last = module
    return last.scale.item()


class Crnn(nn.Module):
    """A keyword-spotting CRNN: quantized convolutions over [1,1,10,8] features (10 frames of 8
    bands), an nn.LSTM or nn.GRU over the frames left in float (eager QAT does not quantize it:
    its qconfig is None, so the export writes DequantizeLinear -> LSTM -> QuantizeLinear), and a
    quantized Linear on the last frame's hidden state."""

    def __init__(self, cell):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.conv = nn.Sequential(ConvReLU(1, 8, 3, padding=1), ConvReLU(8, 4, 1))
        self.rnn_out = tq.QuantStub()
        self.rnn = (nn.LSTM if cell == "lstm" else nn.GRU)(4 * 8, 16)
        self.fc = nn.Linear(16, 6)
        self.out = tq.DeQuantStub()

    def forward(self, x):
        x = self.dequant(self.conv(self.quant(x)))            # [1, 4, 10, 8]
        x = x.permute(2, 0, 1, 3).reshape(10, 1, 32)          # [frames, batch, features]
        y, _ = self.rnn(x)
        y = self.rnn_out(y)
        return self.out(self.fc(y[-1]))


def export_crnn(cell, out_dir):
    model = Crnn(cell)
    model.rnn.qconfig = None
    export(model, (1, 1, 10, 8), "torch_crnn_" + cell, out_dir, per_channel=True, transposes=1)


class RnnStack(nn.Module):
    """nn.LSTM or nn.GRU with batch_first=True, num_layers=2 (bidirectional or not) between two
    fake-quantized Linear layers over [B*T, F] rows, as PyTorch 1.13 exports it: Transpose to
    [T, B, F], the layers in layout 0 with float Squeeze, or Transpose and Reshape, between them,
    their zero states sized by Shape and Expand, and Transpose back to [B, T, D*H]."""

    def __init__(self, cell, bidirectional, batch, steps):
        super().__init__()
        self.batch, self.steps = batch, steps
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.proj = nn.Linear(8, 12)
        self.rnn = (nn.LSTM if cell == "lstm" else nn.GRU)(
            12, 10, num_layers=2, batch_first=True, bidirectional=bidirectional)
        self.rnn_out = tq.QuantStub()
        self.fc = nn.Linear(20 if bidirectional else 10, 5)
        self.out = tq.DeQuantStub()

    def forward(self, x):
        x = self.dequant(self.proj(self.quant(x))).reshape(self.batch, self.steps, 12)
        y, _ = self.rnn(x)                                     # [B, T, D*H]
        y = self.rnn_out(y.reshape(self.batch * self.steps, -1))
        return self.out(self.fc(y))


def export_rnn_stack(cell, bidirectional, batch, out_dir):
    model = RnnStack(cell, bidirectional, batch, 7)
    model.rnn.qconfig = None
    name = f"torch_{cell}_stack{'_bidirectional' if bidirectional else ''}_batch{batch}"
    # Batch 1: the transposes move dimensions of size 1 only (free reshapes).
    export(model, (batch * 7, 8), name, out_dir, per_channel=False,
           transposes=0 if batch == 1 else 2)
    return name


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    # Transposes: none where the input has one channel (a free reshape makes it NHWC) and the
    # Flatten before Gemm re-lays the weights; one for MobileNetV2's 3-channel NCHW input.
    export(DsCnn(), (1, 1, 49, 10), "torch_dscnn", out, per_channel=True, transposes=0)
    export(MobileNetV2(), (1, 3, 32, 32), "torch_mobilenetv2", out, per_channel=True, transposes=1)
    export(MobileNetV3(), (1, 3, 32, 32), "torch_mobilenetv3", out, per_channel=True,
           transposes=1)
    export(CnnGemm(), (1, 1, 16, 16), "torch_cnn_gemm", out, per_channel=False, transposes=0)
    # One channel in: a free reshape makes the 1-D input channels-last; a one-step output too.
    export_audio1d(out)
    # The input's; per channel shuffle, one to ONNX's order for the 5-D reshape and the
    # shuffle's own; after the first, the chunk's halves back to channels-last (the global pool
    # averages the last shuffle's result in ONNX's order).
    export(ShuffleNetV2(), (1, 3, 16, 16), "torch_shufflenetv2", out, per_channel=True,
           transposes=7)
    # The input's only: the class map [1,1,H,W] is NCHW by a free reshape.
    export(TinyUNet(), (1, 3, 16, 16), "torch_unet", out, per_channel=True, transposes=1,
           indices=True)
    # One transpose: the features to [frames, batch, channels * bands].
    export_crnn("lstm", out)
    export_crnn("gru", out)
    # PyTorch's batch_first stacked layers: bidirectional over batch 1, one direction over 2 (a
    # transpose of the int8 input and one of the output).
    export_rnn_stack("lstm", True, 1, out)
    export_rnn_stack("gru", True, 1, out)
    export_rnn_stack("lstm", False, 2, out)


if __name__ == "__main__":
    main()
