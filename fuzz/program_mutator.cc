#include "fuzz/program_mutator.h"

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "mote/schema/mote_generated.h"

namespace mote::fuzz {
namespace {

class Mutator {
 public:
  explicit Mutator(uint32_t seed) : rng_(seed) {}

  void mutate(schema::ProgramT& p) {
    switch (below(8)) {
      case 0:
      case 1:
      case 2:
        if (!p.tensors.empty()) tensor(p, *p.tensors[below(p.tensors.size())]);
        break;
      case 3:
      case 4:
      case 5:
        if (!p.operators.empty()) op(p, *p.operators[below(p.operators.size())]);
        break;
      case 6:
        program(p);
        break;
      default:
        if (!p.constants.empty()) {
          p.constants[below(p.constants.size())] = static_cast<uint8_t>(rng_());
        }
        break;
    }
  }

 private:
  size_t below(size_t n) { return n == 0 ? 0 : rng_() % n; }

  // A value near `v`, or one of the boundaries the loader's checks sit on.
  int64_t near(int64_t v, int64_t scale = 0) {
    static const int64_t kSpecial[] = {0, 1, -1, 2, 16, 255, 256, 4096, 65535, 65536,
                                       INT32_MAX, INT32_MIN, UINT32_MAX, INT32_MAX / 2};
    switch (below(6)) {
      case 0: return v + 1;
      case 1: return v - 1;
      case 2: return v + (below(2) != 0 ? 16 : -16);
      case 3: return scale > 0 ? static_cast<int64_t>(below(static_cast<size_t>(scale) + 1)) : v * 2;
      case 4: return v * 2;
      default: return kSpecial[below(sizeof(kSpecial) / sizeof(kSpecial[0]))];
    }
  }
  void i32(int32_t& v, int64_t scale = 0) { v = static_cast<int32_t>(near(v, scale)); }
  void u32(uint32_t& v, int64_t scale = 0) { v = static_cast<uint32_t>(near(v, scale)); }
  void region(std::unique_ptr<schema::Region>& r, int64_t scale) {
    if (!r) {
      r = std::make_unique<schema::Region>(0, 0);
    }
    if (below(2) != 0) {
      r->mutate_offset(static_cast<uint32_t>(near(r->offset(), scale)));
    } else {
      r->mutate_size(static_cast<uint32_t>(near(r->size(), scale)));
    }
  }
  void requant(std::unique_ptr<schema::Requant>& r) {
    if (!r) r = std::make_unique<schema::Requant>(1 << 30, 0);
    if (below(2) != 0) {
      r->mutate_multiplier(static_cast<int32_t>(near(r->multiplier())));
    } else {
      r->mutate_shift(static_cast<int32_t>(near(r->shift())));
    }
  }
  void index(int32_t& v, const schema::ProgramT& p) {
    v = below(4) == 0 ? static_cast<int32_t>(near(v))
                      : static_cast<int32_t>(below(p.tensors.size() + 1)) - 1;
  }
  void ints(std::vector<int32_t>& v, int64_t scale = 0) {
    if (v.empty() || below(8) == 0) {
      v.push_back(static_cast<int32_t>(near(1, scale)));
    } else if (below(8) == 0) {
      v.pop_back();
    } else {
      i32(v[below(v.size())], scale);
    }
  }

  void tensor(const schema::ProgramT& p, schema::TensorT& t) {
    const int64_t arena = p.arena_size;
    switch (below(12)) {
      case 10:
        // A ring of rows, or a different one (the size may then disagree, or the stage's
        // schedule need more rows).
        u32(t.ring_rows, 4);
        break;
      case 0: u32(t.offset, arena); break;
      case 1: u32(t.size, arena); break;
      case 2: ints(t.shape, 64); break;
      case 3: u32(t.first_step, static_cast<int64_t>(p.operators.size())); break;
      case 4: u32(t.last_step, static_cast<int64_t>(p.operators.size())); break;
      case 5: index(t.alias, p); break;
      case 6: t.location = static_cast<schema::Location>(below(4)); break;  // 3: unknown
      case 7: t.type = static_cast<schema::DataType>(below(9)); break;  // 8: unknown
      case 8: i32(t.zero_point); break;
      case 9: t.scale = below(2) != 0 ? t.scale * 2 : static_cast<float>(near(0)); break;
      default:  // keep size consistent with a changed shape, so later checks are reached
        if (!t.shape.empty()) {
          i32(t.shape[below(t.shape.size())], 64);
          uint64_t count = 1;
          for (int32_t d : t.shape) {
            count *= static_cast<uint32_t>(d);
            count &= 0xFFFFFFFFu;  // a wrapped size is one more hostile value
          }
          t.size = static_cast<uint32_t>(count);
        }
        break;
    }
  }

  void op(const schema::ProgramT& p, schema::OperatorT& o) {
    const int64_t arena = p.arena_size;
    switch (below(8)) {
      case 6:
        // Run backward or not: the loader must refuse a kind or shape that cannot, and an
        // output placed by the other direction's rule.
        o.backward = !o.backward;
        break;
      case 7:
        // Run in place or not: the loader must refuse a kind or shape that cannot, a scratch
        // without the plane, and an output that is neither on its input nor apart.
        o.in_place = !o.in_place;
        break;
      case 0:
        if (!o.inputs.empty()) index(o.inputs[below(o.inputs.size())], p);
        break;
      case 1:
        if (!o.outputs.empty()) index(o.outputs[below(o.outputs.size())], p);
        break;
      case 2: region(o.scratch, arena); break;
      case 3: {
        // Every kind, and one past the last (an unknown kind the loader must refuse).
        const size_t kinds = static_cast<size_t>(schema::OpKind::MAX) + 1;
        o.kind = static_cast<schema::OpKind>(below(kinds + 1));
        break;
      }
      default: options(o, static_cast<int64_t>(p.constants.size())); break;
    }
  }

  void options(schema::OperatorT& o, int64_t constants) {
    auto& u = o.options;
    if (auto* c = u.AsConvOptions()) {
      int32_t* f[] = {&c->stride_h, &c->stride_w,     &c->pad_h,          &c->pad_w,
                      &c->dilation_h, &c->dilation_w, &c->input_offset,   &c->output_offset,
                      &c->activation_min, &c->activation_max};
      if (below(4) == 0) {
        region(below(3) == 0 ? c->multipliers : below(2) == 0 ? c->shifts : c->kernel_sums,
               constants);
      } else {
        i32(*f[below(10)], 8);
      }
    } else if (auto* d = u.AsDepthwiseConvOptions()) {
      int32_t* f[] = {&d->stride_h,   &d->stride_w,       &d->pad_h,        &d->pad_w,
                      &d->dilation_h, &d->dilation_w,     &d->depth_multiplier,
                      &d->input_offset, &d->output_offset, &d->activation_min};
      if (below(4) == 0) {
        region(below(2) == 0 ? d->multipliers : d->shifts, constants);
      } else {
        i32(*f[below(10)], 8);
      }
    } else if (auto* fc = u.AsFullyConnectedOptions()) {
      int32_t* f[] = {&fc->input_offset, &fc->filter_offset, &fc->output_offset,
                      &fc->activation_min, &fc->activation_max};
      switch (below(3)) {
        case 0: requant(fc->output_requant); break;
        case 1:
          region(below(3) == 0 ? fc->multipliers : below(2) == 0 ? fc->shifts : fc->kernel_sums,
                 constants);
          break;
        default: i32(*f[below(5)], 8); break;
      }
    } else if (auto* pool = u.AsPoolOptions()) {
      int32_t* f[] = {&pool->stride_h, &pool->stride_w, &pool->filter_h, &pool->filter_w,
                      &pool->pad_h,    &pool->pad_w,    &pool->activation_min};
      i32(*f[below(7)], 8);
    } else if (auto* add = u.AsAddOptions()) {
      switch (below(4)) {
        case 0: requant(add->input1_requant); break;
        case 1: requant(add->input2_requant); break;
        case 2: requant(add->output_requant); break;
        default: i32(add->left_shift); break;
      }
    } else if (auto* mul = u.AsMulOptions()) {
      requant(mul->output_requant);
    } else if (auto* s = u.AsSoftmaxOptions()) {
      int32_t* f[] = {&s->input_multiplier, &s->input_left_shift, &s->diff_min};
      i32(*f[below(3)]);
    } else if (auto* ls = u.AsLogSoftmaxOptions()) {
      int32_t* f[] = {&ls->input_multiplier, &ls->input_left_shift, &ls->reverse_scaling_divisor,
                      &ls->reverse_scaling_right_shift, &ls->diff_min};
      i32(*f[below(5)]);
    } else if (auto* q = u.AsQuantizeOptions()) {
      if (below(2) != 0) requant(q->requant); else i32(q->input_offset);
    } else if (auto* pad = u.AsPadOptions()) {
      ints(below(2) != 0 ? pad->before : pad->after, 4);
    } else if (auto* m = u.AsMeanOptions()) {
      switch (below(3)) {
        case 0: ints(m->axes, 4); break;
        case 1: m->keep_dims = !m->keep_dims; break;
        default: requant(m->requant); break;
      }
    } else if (auto* cat = u.AsConcatenationOptions()) {
      i32(cat->axis, 4);
    } else if (auto* t = u.AsTransposeOptions()) {
      ints(t->perm, 6);
    } else if (auto* l = u.AsLogisticOptions()) {
      int32_t* f[] = {&l->input_zero_point, &l->input_range_radius, &l->input_multiplier,
                      &l->input_left_shift};
      if (below(4) == 0) region(l->table, constants); else i32(*f[below(4)]);
    } else if (auto* h = u.AsHardSwishOptions()) {
      int32_t* f[] = {&h->input_zero_point, &h->output_zero_point,
                      &h->reluish_multiplier_exponent, &h->output_multiplier_exponent};
      if (below(4) == 0) region(h->table, constants); else i32(*f[below(4)]);
    } else if (auto* tl = u.AsTableLookupOptions()) {
      region(tl->table, constants);
    } else if (auto* tc = u.AsTransposeConvOptions()) {
      int32_t* f[] = {&tc->stride_h, &tc->stride_w, &tc->pad_h, &tc->pad_w, &tc->input_offset};
      i32(*f[below(5)], 8);
    }
  }

  // A stage's calls (one uint16 each: member << 12 | rows): an entry's member or rows moved,
  // two swapped, one dropped or repeated.
  void stage_calls(std::vector<uint16_t>& calls) {
    if (calls.empty()) {
      calls.push_back(static_cast<uint16_t>(rng_()));
      return;
    }
    const size_t i = below(calls.size());
    switch (below(5)) {
      case 0: calls[i] = static_cast<uint16_t>(calls[i] ^ (1u << (12 + below(4)))); break;
      case 1: calls[i] = static_cast<uint16_t>((calls[i] & 0xF000) | (near(calls[i] & 0xFFF) & 0xFFF)); break;
      case 2: std::swap(calls[i], calls[below(calls.size())]); break;
      case 3: calls.erase(calls.begin() + static_cast<ptrdiff_t>(i)); break;
      default: calls.insert(calls.begin() + static_cast<ptrdiff_t>(i), calls[i]); break;
    }
  }

  void program(schema::ProgramT& p) {
    switch (below(6)) {
      case 5: {
        // Row-streamed stages: moved, grown, cut, added or removed (with their calls, or not),
        // or their calls changed.
        const int64_t ops = static_cast<int64_t>(p.operators.size());
        if (!p.stage_calls.empty() && below(2) == 0) {
          stage_calls(p.stage_calls[below(p.stage_calls.size())]->calls);
        } else if (!p.stages.empty() && below(4) == 0) {
          const size_t k = below(p.stages.size());
          p.stages.erase(p.stages.begin() + static_cast<ptrdiff_t>(k));
          if (k < p.stage_calls.size() && below(8) != 0) {
            p.stage_calls.erase(p.stage_calls.begin() + static_cast<ptrdiff_t>(k));
          }
        } else if (p.stages.empty() || below(4) == 0) {
          p.stages.emplace_back(static_cast<uint32_t>(near(0, ops)), static_cast<uint32_t>(near(1, ops)));
          if (below(8) != 0) {
            auto calls = std::make_unique<schema::StageCallsT>();
            for (size_t i = below(64); i > 0; --i) calls->calls.push_back(static_cast<uint16_t>(rng_()));
            p.stage_calls.push_back(std::move(calls));
          }
        } else {
          schema::Stage& s = p.stages[below(p.stages.size())];
          if (below(2) != 0) {
            s.mutate_first(static_cast<uint32_t>(near(s.first(), ops)));
          } else {
            s.mutate_last(static_cast<uint32_t>(near(s.last(), ops)));
          }
        }
        break;
      }
      case 0: u32(p.arena_size, p.arena_size); break;
      case 1: u32(p.arena_alignment); break;
      case 2: ints(p.inputs, static_cast<int64_t>(p.tensors.size())); break;
      case 3: ints(p.outputs, static_cast<int64_t>(p.tensors.size())); break;
      default:
        if (p.target) p.target->extension = static_cast<schema::Extension>(below(4));
        break;
    }
  }

  std::minstd_rand rng_;
};

}  // namespace

size_t mutate_program(uint8_t* data, size_t size, size_t max_size, uint32_t seed) {
  // FlatBuffers reads scalars in place: verify and unpack from an aligned copy.
  std::vector<uint64_t> aligned((size + 7) / 8);
  if (size != 0) std::memcpy(aligned.data(), data, size);
  const auto* bytes = reinterpret_cast<const uint8_t*>(aligned.data());
  flatbuffers::Verifier verifier(bytes, size);
  if (!schema::VerifyProgramBuffer(verifier)) return 0;
  std::unique_ptr<schema::ProgramT> program = schema::UnPackProgram(bytes);
  // The verifier lets a union name a type without a value; Pack would dereference it.
  for (auto& op : program->operators) {
    if (op->options.value == nullptr) op->options.type = schema::OpOptions::NONE;
  }
  Mutator mutator(seed);
  const int rounds = 1 + static_cast<int>(seed % 3);
  for (int i = 0; i < rounds; ++i) mutator.mutate(*program);
  flatbuffers::FlatBufferBuilder builder(size + 256);
  builder.Finish(schema::Program::Pack(builder, program.get()), schema::ProgramIdentifier());
  if (builder.GetSize() > max_size) return 0;
  std::memcpy(data, builder.GetBufferPointer(), builder.GetSize());
  return builder.GetSize();
}

}  // namespace mote::fuzz
