#pragma once
// Writing a .mote program: the constant blob (every item 16-byte aligned, so kernels read it in
// place), FlatBuffers packing of the schema's object API (schema::ProgramT), a check of the
// result with the runtime's own loader, and atomic file output.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mote/runtime/program.h"
#include "mote/schema/mote_generated.h"

namespace mote::emit {

/// Alignment of every constant inside the blob, and of the blob inside the program.
inline constexpr size_t kConstantAlignment = 16;

/// The constant blob of a program. Each add() starts at a 16-byte aligned offset.
class ConstantPool {
 public:
  /// Appends `bytes`; returns their offset in the blob.
  uint32_t add(std::span<const uint8_t> bytes);
  /// Appends an array of scalars (int8 weights, int32 biases, multipliers, shifts, kernel sums);
  /// returns its region (offset, byte size).
  template <typename T>
  schema::Region add_array(std::span<const T> values) {
    const auto* p = reinterpret_cast<const uint8_t*>(values.data());
    const uint32_t offset = add({p, values.size_bytes()});
    return schema::Region(offset, static_cast<uint32_t>(values.size_bytes()));
  }
  template <typename T>
  schema::Region add_array(const std::vector<T>& values) {
    return add_array(std::span<const T>(values));
  }

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  /// Moves the blob out (for ProgramT::constants).
  std::vector<uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
};

/// Packs `program` (its version is set to the runtime's format version), then loads the result
/// with mote::runtime::Program::load. Throws mote::InputError when the runtime cannot run the
/// program (Error::kUnsupported, e.g. parameters outside what the kernels support) and
/// std::logic_error for any other rejection (a compiler bug); the message names the tensor or
/// operator and the reason.
std::vector<uint8_t> emit_program(schema::ProgramT program);

/// Row-streamed stages: sets every stage's row-call words (StageCalls.args) to what the runtime
/// requires of them (runtime::stage_row_words: its operators' kernel parameters and tensor
/// offsets). emit_program calls it; a test that moves tensors of a program calls it again.
void write_stage_words(schema::ProgramT& program);
/// Sets every operator's prepared call (Operator.call) to what the runtime requires of it
/// (runtime::operator_call_words: its kernel's parameters and where its tensors sit), none where
/// its form takes none. emit_program calls it; so does a test that changes a program's tensors.
void write_call_words(schema::ProgramT& program);

/// runtime::Program::load with a workspace that fits any program, so the plan check is
/// O(n log n) even for a program with thousands of tensors. `bytes` must be 16-byte aligned.
runtime::Result<runtime::Program> load_program(std::span<const uint8_t> bytes,
                                               runtime::LoadDiagnostic* diagnostic);

/// The inverse, for tools and tests: unpacks verified program bytes. Throws mote::InputError if
/// the bytes are not a valid program.
std::unique_ptr<schema::ProgramT> read_program(std::span<const uint8_t> bytes);

/// The files one command writes, committed together so that a failure leaves none of them
/// behind. Every output of every `mote` command goes through here. Per path:
///   - "-": standard output, written at commit();
///   - a character device or a FIFO (also through symbolic links): written directly at commit();
///   - a regular file or a path that does not exist: written now to a temporary beside it (beside
///     the final target of a symbolic link, which stays a link) and renamed onto it at commit();
///     an existing file keeps its permissions;
///   - a directory (or a block device, a socket): refused.
/// Failures throw mote::InputError "<path>: cannot write: <reason>" (strerror for system
/// errors); temporaries are removed on failure and when the object dies uncommitted.
class OutputFiles {
 public:
  OutputFiles() = default;
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  ~OutputFiles();

  void add(const std::string& path, std::span<const uint8_t> bytes);
  void add(const std::string& path, std::string_view text);
  /// Direct outputs first (a full device fails before anything is replaced), then the renames;
  /// if one fails, the files this set created are removed again.
  void commit();

 private:
  struct Entry {
    std::string path;    // as given, for messages
    std::string target;  // where the bytes go (a symbolic link's final target)
    std::string temp;    // empty for a direct output
    std::vector<uint8_t> direct_bytes;
    bool existed = false;
    bool committed = false;
  };
  void discard();
  std::vector<Entry> entries_;
};

/// One output on its own: OutputFiles with a single add() and commit().
void write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes);

/// Flushes standard output and throws mote::InputError "standard output: cannot write: <reason>"
/// if any write to it failed (a full disk, /dev/full, a closed pipe).
void flush_stdout();

/// Zeroed bytes at an aligned address (program bytes must be 16-byte aligned, since constants
/// are read in place; an arena needs its program's arena alignment).
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  /// `alignment` is a power of two, at least 16.
  explicit AlignedBuffer(size_t size, size_t alignment = kConstantAlignment);
  AlignedBuffer(std::span<const uint8_t> bytes);
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  std::span<uint8_t> span() { return {data_.get(), size_}; }
  std::span<const uint8_t> span() const { return {data_.get(), size_}; }

 private:
  struct Free {
    Free() : alignment(kConstantAlignment) {}
    explicit Free(size_t a) : alignment(a) {}
    void operator()(uint8_t* p) const;
    size_t alignment;
  };
  std::unique_ptr<uint8_t[], Free> data_;
  size_t size_ = 0;
};

/// Reads a whole file into an aligned buffer. Throws mote::InputError "<path>: cannot open: ...".
AlignedBuffer read_file_aligned(const std::filesystem::path& path);

}  // namespace mote::emit
