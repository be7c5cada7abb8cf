#include "fuzz/fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "mote/runtime/executor.h"
#include "mote/schema/mote_generated.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MOTE_FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define MOTE_FUZZ_ASAN 1
#endif
#if MOTE_FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace mote::fuzz {
namespace {

using schema::Location;
using schema::OpKind;

[[noreturn]] void contract_broken(const char* what) {
  // A message, then a crash libFuzzer records with the input.
  std::fprintf(stderr, "mote fuzz: %s\n", what);
  std::abort();
}

uint64_t saturating_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }
uint64_t saturating_mul(uint64_t a, uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

uint64_t elements(const schema::Tensor& t) {
  uint64_t n = 1;
  if (t.shape() != nullptr) {
    for (int32_t d : *t.shape()) n = saturating_mul(n, d > 0 ? static_cast<uint64_t>(d) : 0);
  }
  return n;
}

int32_t dim(const schema::Tensor& t, uint32_t i) {
  return t.shape() != nullptr && i < t.shape()->size() ? t.shape()->Get(i) : 1;
}

void poison(uint8_t* p, size_t n) {
#if MOTE_FUZZ_ASAN
  ASAN_POISON_MEMORY_REGION(p, n);
#else
  (void)p;
  (void)n;
#endif
}
void unpoison(uint8_t* p, size_t n) {
#if MOTE_FUZZ_ASAN
  ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
  (void)p;
  (void)n;
#endif
}

}  // namespace

ExactBuffer::ExactBuffer(size_t size, size_t alignment)
    : data_(static_cast<uint8_t*>(::operator new(size == 0 ? 1 : size,
                                                 std::align_val_t{alignment}))),
      size_(size),
      alignment_(std::align_val_t{alignment}) {
  std::memset(data_, 0, size);
}

ExactBuffer::ExactBuffer(const uint8_t* data, size_t size, size_t alignment)
    : ExactBuffer(size, alignment) {
  if (size != 0) std::memcpy(data_, data, size);
}

ExactBuffer::~ExactBuffer() {
  unpoison(data_, size_);
  ::operator delete(data_, alignment_);
}

uint64_t estimated_work(const runtime::Program& program) {
  const schema::Program& p = *program.root();
  const auto& tensors = *p.tensors();
  auto tensor = [&](int32_t i) -> const schema::Tensor& {
    return *tensors.Get(static_cast<uint32_t>(i));
  };
  uint64_t total = 0;
  for (const schema::Operator* op : *p.operators()) {
    // Loaded programs have every operator's inputs and outputs in range (-1: absent input).
    uint64_t touched = 0;
    for (int32_t i : *op->inputs()) {
      if (i >= 0) touched = saturating_add(touched, elements(tensor(i)));
    }
    for (int32_t i : *op->outputs()) touched = saturating_add(touched, elements(tensor(i)));
    uint64_t work = touched;
    const schema::Tensor& y = tensor(op->outputs()->Get(0));
    const uint64_t out = elements(y);
    auto in = [&](uint32_t k) -> const schema::Tensor& { return tensor(op->inputs()->Get(k)); };
    switch (op->kind()) {
      case OpKind::Conv2D:  // filter [Co, Kh, Kw, Cf]
        work = saturating_mul(out, elements(in(1)) / static_cast<uint64_t>(dim(in(1), 0)));
        break;
      case OpKind::DepthwiseConv2D:  // filter [1, Kh, Kw, Co]
        work = saturating_mul(out, uint64_t(dim(in(1), 1)) * uint64_t(dim(in(1), 2)));
        break;
      case OpKind::FullyConnected:  // filter [Co, D]
        work = saturating_mul(out, static_cast<uint64_t>(dim(in(1), 1)));
        break;
      case OpKind::TransposeConv:  // every input element meets the whole filter
        work = saturating_mul(elements(in(0)) / static_cast<uint64_t>(dim(in(0), 3)),
                              elements(in(1)));
        break;
      case OpKind::UnidirectionalSequenceLstm:  // each output: four gates' input and recurrent rows
        work = saturating_mul(out, 4 * (uint64_t(dim(in(1), 1)) + uint64_t(dim(in(5), 1))));
        break;
      case OpKind::AveragePool2D:
      case OpKind::MaxPool2D: {
        const auto* o = op->options_as_PoolOptions();
        work = saturating_mul(out, uint64_t(o->filter_h()) * uint64_t(o->filter_w()));
        break;
      }
      default:
        break;
    }
    // Scratch is written too (im2col columns, row buffers).
    if (op->scratch() != nullptr) work = saturating_add(work, op->scratch()->size());
    total = saturating_add(total, saturating_add(work, touched) + 16);
  }
  return total;
}

Counters& counters() {
  static Counters c;
  return c;
}

bool run_loaded_program(const runtime::Program& program, uint32_t seed) {
  ++counters().programs_loaded;
  const size_t arena_size = program.arena_size();
  if (arena_size > kMaxRunArenaBytes || estimated_work(program) > kMaxRunWork) return false;
  ExactBuffer arena(arena_size, program.arena_alignment());

  // Poison what no tensor or scratch region may touch: a kernel writing there writes outside
  // every buffer the plan gave it.
  const schema::Program& p = *program.root();
  std::vector<uint8_t> covered(arena_size, 0);
  auto cover = [&](uint32_t offset, uint32_t size) {
    std::memset(covered.data() + offset, 1, size);  // inside the arena: Program::load checked
  };
  for (const schema::Tensor* t : *p.tensors()) {
    if (t->location() == Location::Arena) cover(t->offset(), t->size());
  }
  for (const schema::Operator* op : *p.operators()) {
    if (op->scratch() != nullptr) cover(op->scratch()->offset(), op->scratch()->size());
  }
  for (size_t i = 0; i < arena_size;) {
    if (covered[i]) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < arena_size && !covered[end]) ++end;
    poison(arena.data() + i, end - i);
    i = end;
  }

  auto executor = runtime::Executor::create(program, arena.data(), arena.size());
  if (!executor.ok()) contract_broken("Executor::create failed on a loaded program");
  const uint8_t* arena_end = arena.data() + arena_size;
  auto inside = [&](const runtime::TensorView& v) {
    return v.data != nullptr && v.data >= arena.data() && v.size <= arena_size &&
           v.data + v.size <= arena_end;
  };
  uint32_t state = seed == 0 ? 1 : seed;
  // Inputs outside the arena: a buffer of exactly their size each, bound, and never written.
  std::vector<std::unique_ptr<ExactBuffer>> bound;
  std::vector<uint32_t> bound_hash;
  for (size_t i = 0; i < executor->num_inputs(); ++i) {
    runtime::TensorView v = executor->input(i);
    if (executor->input_is_external(i)) {
      if (v.data != nullptr) contract_broken("unbound external input with data");
      if (executor->run() != runtime::Error::kInputNotBound) {
        contract_broken("run() with an unbound external input did not say so");
      }
      bound.push_back(std::make_unique<ExactBuffer>(v.size, 16));
      if (executor->bind_input(i, bound.back()->data(), v.size + 1) == runtime::Error::kOk) {
        contract_broken("bind_input took the wrong size");
      }
      if (executor->bind_input(i, bound.back()->data(), v.size) != runtime::Error::kOk) {
        contract_broken("bind_input refused an exact, aligned buffer");
      }
      v = executor->input(i);
      if (v.data != bound.back()->data()) contract_broken("bound input view elsewhere");
    } else if (!inside(v)) {
      contract_broken("graph input view outside the arena");
    }
    for (size_t k = 0; k < v.size; ++k) {
      state ^= state << 13;
      state ^= state >> 17;
      state ^= state << 5;
      v.data[k] = static_cast<uint8_t>(state);
    }
    if (executor->input_is_external(i)) bound_hash.push_back(hash_bytes(v.data, v.size));
  }
  if (executor->input(executor->num_inputs()).data != nullptr) {
    contract_broken("input view past the last input");
  }
  if (executor->run() != runtime::Error::kOk) contract_broken("run() failed on a loaded program");
  for (size_t k = 0; k < bound.size(); ++k) {
    if (hash_bytes(bound[k]->data(), bound[k]->size()) != bound_hash[k]) {
      contract_broken("run() wrote an input outside the arena");
    }
  }
  for (size_t i = 0; i < executor->num_outputs(); ++i) {
    if (!inside(executor->output(i))) contract_broken("graph output view outside the arena");
  }
  char report[384];
  if (runtime::format_memory_status(executor->memory_status(), report, sizeof(report)) == 0) {
    contract_broken("memory status report does not fit 384 bytes");
  }
  ++counters().programs_run;
  return true;
}

uint32_t hash_bytes(const uint8_t* data, size_t size) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  return h;
}

}  // namespace mote::fuzz
