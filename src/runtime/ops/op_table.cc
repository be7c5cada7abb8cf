// The operator table, in flash. The host builds every operator in; a firmware image is compiled
// with MOTE_OP_SELECTION_HEADER, a header generated from its programs (mote_add_model) that
// defines MOTE_SELECTED_OPS(X) as X(<kind>) for each kind they use, and MOTE_SELECTED_FORMS(X)
// as X(<kind>, <form>, <field>) for each separate form (ops/op_forms.h) they run. The other
// kinds' entries and forms stay empty, so nothing references their checks, invokes or kernels
// and --gc-sections drops them. An image compiles this file itself; its object then stands in
// for the one in mote_runtime.

#include "runtime/ops/registry.h"
#include "runtime/stages.h"

#if defined(MOTE_OP_SELECTION_HEADER)
#include MOTE_OP_SELECTION_HEADER
#if !defined(MOTE_SELECTED_FORMS)
#define MOTE_SELECTED_FORMS(X)
#endif
#else
#define MOTE_SELECTED_FORMS(X) MOTE_OPERATOR_FORMS(X)
#endif

namespace mote {
namespace runtime {
namespace internal {
namespace {

constexpr size_t kNumOpKinds = static_cast<size_t>(schema::OpKind::MAX) + 1;

constexpr size_t index_of(schema::OpKind kind) { return static_cast<size_t>(kind); }

// Whether this image builds `kind` in: the host every kind, an image the kinds its programs use.
constexpr bool selected(schema::OpKind kind) {
#if defined(MOTE_OP_SELECTION_HEADER)
#define MOTE_INTERNAL_IS(k) kind == schema::OpKind::k ||
  return MOTE_SELECTED_OPS(MOTE_INTERNAL_IS) false;
#undef MOTE_INTERNAL_IS
#else
  return index_of(kind) < kNumOpKinds;
#endif
}

// The form table has a row for each kind built in with separate forms, and no other: a row is
// ten pointers, which an image whose programs never run the kind need not carry.
constexpr bool has_form_row(schema::OpKind kind) {
  return selected(kind) && separate_forms(kind) != 0;
}

constexpr size_t count_form_rows() {
  size_t n = 0;
  for (size_t k = 0; k < kNumOpKinds; ++k) {
    if (has_form_row(static_cast<schema::OpKind>(k))) ++n;
  }
  return n;
}
constexpr size_t kFormRows = count_form_rows();

// The row of `kind` in the form table: the kinds that have one, in enum order.
constexpr size_t form_row(schema::OpKind kind) {
  size_t row = 0;
  for (size_t k = 0; k < index_of(kind); ++k) {
    if (has_form_row(static_cast<schema::OpKind>(k))) ++row;
  }
  return row;
}

struct FormTable {
  OpFormTable rows[kFormRows > 0 ? kFormRows : 1];  // C++ has no array of length 0
};

constexpr FormTable make_forms() {
  FormTable f{};
  for (size_t k = 0; k < kNumOpKinds; ++k) {
    const auto kind = static_cast<schema::OpKind>(k);
    if (has_form_row(kind)) f.rows[form_row(kind)].separate = separate_forms(kind);
  }
#define MOTE_INTERNAL_SELECT_FORM(kind, form, field)                                     \
  static_assert(has_form_row(schema::OpKind::kind), "a form selected of a kind left out"); \
  f.rows[form_row(schema::OpKind::kind)].field = &k##kind##form;
  MOTE_SELECTED_FORMS(MOTE_INTERNAL_SELECT_FORM)
#undef MOTE_INTERNAL_SELECT_FORM
  return f;
}

constexpr FormTable kForms = make_forms();

constexpr bool any_one_input_form_built() {
  for (const OpFormTable& f : kForms.rows) {
    if (f.one_input != nullptr) return true;
  }
  return false;
}

constexpr bool any_row_form_built() {
  for (const OpFormTable& f : kForms.rows) {
    if (f.rows != nullptr || f.rows_portable != nullptr) return true;
  }
  return false;
}

// An image that checks its programs by their CRC alone (program_load.cc) references no kind's
// load checks.
#if defined(MOTE_VERIFY_CRC)
#define MOTE_INTERNAL_CHECKS(registration) nullptr
#else
#define MOTE_INTERNAL_CHECKS(registration) (registration)
#endif

struct OpTable {
  OpEntry entries[kNumOpKinds];
};

constexpr OpTable make_table() {
  OpTable t{};
  // Every kind has its name (the load diagnostic's), and is refused until it is selected.
#define MOTE_INTERNAL_NAME(kind, name, definition) \
  t.entries[index_of(schema::OpKind::kind)] = OpEntry{name, nullptr, false, nullptr, nullptr};
  MOTE_OPERATORS(MOTE_INTERNAL_NAME)
#undef MOTE_INTERNAL_NAME
#define MOTE_INTERNAL_SELECT(kind)                                                   \
  t.entries[index_of(schema::OpKind::kind)].op = MOTE_INTERNAL_CHECKS(&k##kind##Op); \
  t.entries[index_of(schema::OpKind::kind)].built_in = true;                         \
  if (separate_forms(schema::OpKind::kind) != 0) {                                   \
    t.entries[index_of(schema::OpKind::kind)].forms =                                \
        &kForms.rows[form_row(schema::OpKind::kind)];                                \
  } else {                                                                           \
    t.entries[index_of(schema::OpKind::kind)].plain = &k##kind##Plain;               \
  }
#if defined(MOTE_OP_SELECTION_HEADER)
  MOTE_SELECTED_OPS(MOTE_INTERNAL_SELECT)
#else
#define MOTE_INTERNAL_SELECT_EVERY(kind, name, definition) MOTE_INTERNAL_SELECT(kind)
  MOTE_OPERATORS(MOTE_INTERNAL_SELECT_EVERY)
#undef MOTE_INTERNAL_SELECT_EVERY
#endif
#undef MOTE_INTERNAL_SELECT
#undef MOTE_INTERNAL_CHECKS
  return t;
}

constexpr OpTable kTable = make_table();

#define MOTE_INTERNAL_COUNT(kind, name, definition) +1
constexpr size_t kListedKinds = 0 MOTE_OPERATORS(MOTE_INTERNAL_COUNT);
#undef MOTE_INTERNAL_COUNT

constexpr bool every_kind_named() {
  for (const OpEntry& e : kTable.entries) {
    if (e.name == nullptr) return false;
  }
  return true;
}
// Each kind once: as many lines as kinds, and none left without a name.
static_assert(kListedKinds == kNumOpKinds && every_kind_named(),
              "MOTE_OPERATORS (mote/operators.h) must list every schema::OpKind once");

}  // namespace

const OpForm* plain_form(const OpFormTable& forms, const schema::Program& program,
                         const schema::Operator& op) {
  // An image that builds no one-input form has no shapes to read here.
  if constexpr (any_one_input_form_built()) {
    if (forms.one_input != nullptr && one_input_channel(program, op)) return forms.one_input;
  }
  return forms.plain;
}

const StageSupport* built_stages() {
  if constexpr (any_row_form_built()) {
    return &kStageSupport;
  } else {
    return nullptr;
  }
}

const OpEntry* op_entry(schema::OpKind kind) {
  const size_t i = index_of(kind);
  return i < kNumOpKinds ? &kTable.entries[i] : nullptr;
}

}  // namespace internal
}  // namespace runtime
}  // namespace mote
