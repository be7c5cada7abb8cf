#include "compiler/planner/csv.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <istream>
#include <ostream>
#include <unordered_map>

#include "compiler/ir/error.h"

namespace mote::planner {

namespace {

enum class Column { kId, kLower, kUpper, kEnd, kSize, kAlignment, kKind, kOffset };

std::optional<Column> column_from_name(std::string_view name) {
  if (name == "id" || name == "buffer" || name == "buffer_id") return Column::kId;
  if (name == "lower" || name == "start" || name == "begin") return Column::kLower;
  if (name == "upper") return Column::kUpper;
  if (name == "end") return Column::kEnd;
  if (name == "size") return Column::kSize;
  if (name == "alignment") return Column::kAlignment;
  if (name == "kind") return Column::kKind;
  if (name == "offset") return Column::kOffset;
  return std::nullopt;
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

class LineError {
 public:
  LineError(std::string_view source, size_t line) : prefix_(std::string(source) + ":" + std::to_string(line) + ": ") {}
  [[noreturn]] void operator()(const std::string& reason) const { throw InputError(prefix_ + reason); }

 private:
  std::string prefix_;
};

// Splits one line into fields; "quoted, fields" may hold commas and doubled quotes.
std::vector<std::string> split(std::string_view line, const LineError& fail) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  bool was_quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"' && trim(field).empty()) {
      quoted = true;
      was_quoted = true;
      field.clear();
    } else if (c == ',') {
      fields.push_back(was_quoted ? field : std::string(trim(field)));
      field.clear();
      was_quoted = false;
    } else {
      field += c;
    }
  }
  if (quoted) fail("unterminated quoted field");
  fields.push_back(was_quoted ? field : std::string(trim(field)));
  return fields;
}

uint64_t parse_number(std::string_view text, std::string_view what, const LineError& fail) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    fail(std::string(what) + " '" + std::string(text) + "' is not a non-negative integer");
  }
  return value;
}

bool needs_quotes(std::string_view text) {
  return text.find_first_of(",\"\n\r") != std::string_view::npos || text != trim(text);
}

std::string quote(std::string_view text) {
  if (!needs_quotes(text)) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

}  // namespace

Problem read_csv(std::istream& in, std::string_view source, uint32_t default_alignment) {
  Problem problem;
  std::unordered_map<Column, size_t> columns;
  size_t num_columns = 0;
  std::unordered_map<std::string, size_t> line_of_id;
  std::string line;
  size_t line_number = 0;
  bool have_header = false;
  while (std::getline(in, line)) {
    ++line_number;
    const LineError fail(source, line_number);
    const std::string_view content = trim(line);
    if (content.empty() || content.front() == '#') continue;
    const std::vector<std::string> fields = split(content, fail);
    if (!have_header) {
      for (size_t i = 0; i < fields.size(); ++i) {
        std::string name = fields[i];
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        const std::optional<Column> column = column_from_name(name);
        if (!column) {
          fail("unknown column '" + fields[i] +
               "' (expected id, lower, upper or end, size, and optionally alignment, kind, offset)");
        }
        if (!columns.emplace(*column, i).second) fail("column '" + fields[i] + "' appears twice");
      }
      const bool has_upper = columns.count(Column::kUpper) != 0;
      const bool has_end = columns.count(Column::kEnd) != 0;
      if (has_upper && has_end) fail("give either an upper or an end column, not both");
      for (const auto& [column, name] : {std::pair{Column::kId, "id"}, {Column::kLower, "lower"},
                                         {Column::kSize, "size"}}) {
        if (columns.count(column) == 0) fail(std::string("header has no ") + name + " column");
      }
      if (!has_upper && !has_end) fail("header has no upper column");
      num_columns = fields.size();
      have_header = true;
      continue;
    }
    if (fields.size() != num_columns) {
      fail("expected " + std::to_string(num_columns) + " fields, found " +
           std::to_string(fields.size()));
    }
    auto field = [&](Column column) -> const std::string& { return fields[columns.at(column)]; };
    auto has = [&](Column column) { return columns.count(column) != 0; };
    Buffer buffer;
    buffer.name = field(Column::kId);
    if (buffer.name.empty()) fail("empty id");
    if (auto [it, inserted] = line_of_id.emplace(buffer.name, line_number); !inserted) {
      fail("id '" + buffer.name + "' is already used on line " + std::to_string(it->second));
    }
    const uint64_t lower = parse_number(field(Column::kLower), "lower", fail);
    uint64_t upper = 0;
    if (has(Column::kUpper)) {
      upper = parse_number(field(Column::kUpper), "upper", fail);
    } else {
      upper = parse_number(field(Column::kEnd), "end", fail) + 1;
    }
    // Beyond kMaxSteps, validate() would refuse the problem anyway; fail on the line.
    if (lower >= uint64_t{kMaxSteps} || upper > uint64_t{kMaxSteps}) {
      fail("step out of range (at most " + std::to_string(kMaxSteps) + " steps)");
    }
    if (upper <= lower) {
      fail("empty lifetime: upper " + std::to_string(upper) + " is not after lower " +
           std::to_string(lower));
    }
    buffer.first_step = static_cast<int32_t>(lower);
    buffer.last_step = static_cast<int32_t>(upper - 1);
    buffer.size = parse_number(field(Column::kSize), "size", fail);
    buffer.alignment = default_alignment;
    if (has(Column::kAlignment) && !field(Column::kAlignment).empty()) {
      const uint64_t alignment = parse_number(field(Column::kAlignment), "alignment", fail);
      if (alignment == 0 || alignment > (uint64_t{1} << 31) || (alignment & (alignment - 1)) != 0) {
        fail("alignment " + std::to_string(alignment) + " is not a power of two");
      }
      buffer.alignment = static_cast<uint32_t>(alignment);
    }
    if (has(Column::kKind) && !field(Column::kKind).empty()) {
      const std::optional<BufferKind> kind = buffer_kind_from_string(field(Column::kKind));
      if (!kind) {
        fail("kind '" + field(Column::kKind) + "' is not input, output, activation or scratch");
      }
      buffer.kind = *kind;
    }
    if (has(Column::kOffset) && !field(Column::kOffset).empty()) {
      buffer.fixed_offset = parse_number(field(Column::kOffset), "offset", fail);
      if (*buffer.fixed_offset % buffer.alignment != 0) {
        fail("offset " + std::to_string(*buffer.fixed_offset) + " is not a multiple of the alignment " +
             std::to_string(buffer.alignment));
      }
    }
    problem.num_steps = std::max(problem.num_steps, static_cast<int32_t>(upper));
    problem.buffers.push_back(std::move(buffer));
  }
  if (!have_header) throw InputError(std::string(source) + ": no header line (id,lower,upper,size)");
  try {
    validate(problem);
  } catch (const InputError& e) {
    throw InputError(std::string(source) + ": " + e.what());
  }
  return problem;
}

void write_csv(std::ostream& out, const Problem& problem, const Plan* plan) {
  const auto& buffers = problem.buffers;
  const bool with_kind = std::any_of(buffers.begin(), buffers.end(), [](const Buffer& b) {
    return b.kind != BufferKind::kActivation;
  });
  const bool with_offset =
      plan != nullptr ||
      std::any_of(buffers.begin(), buffers.end(), [](const Buffer& b) { return b.fixed_offset.has_value(); });
  // Always write alignment: readers disagree on its default (1 elsewhere, 16 here).
  out << "id,lower,upper,size,alignment";
  if (with_kind) out << ",kind";
  if (with_offset) out << ",offset";
  out << '\n';
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& b = buffers[i];
    out << quote(b.name) << ',' << b.first_step << ',' << (int64_t{b.last_step} + 1) << ',' << b.size;
    out << ',' << b.alignment;
    if (with_kind) out << ',' << to_string(b.kind);
    if (with_offset) {
      out << ',';
      if (plan != nullptr) {
        out << plan->offsets.at(i);
      } else if (b.fixed_offset) {
        out << *b.fixed_offset;
      }
    }
    out << '\n';
  }
}

}  // namespace mote::planner
