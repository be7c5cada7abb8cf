// Runs an ONNX model with ONNX Runtime (the npm package onnxruntime-node) twice: default session
// options, and graph optimisation disabled. Usage:
//   node ort_run.js MODEL INPUT.bin OUT_DEFAULT.bin OUT_NO_OPT.bin
// INPUT.bin holds the first input's elements as ONNX declares them (MOTE_ORT_INPUT_TYPE: float32,
// the default, int8 or uint8; shape MOTE_ORT_INPUT_SHAPE as JSON, in the model's layout), or, with
// MOTE_ORT_INPUT_SHAPES (a JSON list of shapes), every input's float32 elements in order; each
// output file gets every output's raw elements, concatenated.
'use strict';
const fs = require('fs');
const ort = require(process.env.MOTE_ORT_MODULE || 'onnxruntime-node');

const kinds = {float32: Float32Array, int8: Int8Array, uint8: Uint8Array};

async function run(model, input, optimisation, out) {
  const session = await ort.InferenceSession.create(model, {graphOptimizationLevel: optimisation});
  const type = process.env.MOTE_ORT_INPUT_TYPE || 'float32';
  const Kind = kinds[type];
  const feeds = {};
  if (process.env.MOTE_ORT_INPUT_SHAPES) {
    // Several float32 inputs, in the model's order, their elements one after the other.
    let at = 0;
    JSON.parse(process.env.MOTE_ORT_INPUT_SHAPES).forEach((dims, k) => {
      const count = dims.reduce((a, b) => a * b, 1);
      const data = new Float32Array(count);
      for (let i = 0; i < count; ++i) data[i] = input.readFloatLE(4 * (at + i));
      at += count;
      feeds[session.inputNames[k]] = new ort.Tensor('float32', data, dims);
    });
  } else {
    const dims = JSON.parse(process.env.MOTE_ORT_INPUT_SHAPE);
    const data = new Kind(input.buffer, input.byteOffset, input.byteLength / Kind.BYTES_PER_ELEMENT);
    feeds[session.inputNames[0]] = new ort.Tensor(type, data, dims);
  }
  const results = await session.run(feeds);
  const parts = session.outputNames.map((n) => {
    const d = results[n].data;
    return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  });
  fs.writeFileSync(out, Buffer.concat(parts));
}

(async () => {
  const [model, inputPath, outDefault, outNoOpt] = process.argv.slice(2);
  const input = fs.readFileSync(inputPath);
  await run(model, input, 'all', outDefault);
  await run(model, input, 'disabled', outNoOpt);
})().catch((e) => {
  console.error(String(e));
  process.exit(1);
});
