#include "compiler/emit/emit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>

#include "compiler/ir/error.h"
#include "compiler/ir/label.h"
#include "mote/runtime/call_words.h"
#include "mote/runtime/program.h"
#include "mote/runtime/stage_words.h"

namespace mote::emit {
namespace {

std::string describe(const runtime::LoadDiagnostic& d, const schema::ProgramT& program) {
  using Where = runtime::LoadDiagnostic::Where;
  std::string place;
  switch (d.where) {
    case Where::kProgram: place = "program"; break;
    case Where::kTensor:
      place = ir::tensor_label(d.index, d.index < program.tensors.size()
                                            ? program.tensors[d.index]->name
                                            : std::string());
      break;
    case Where::kOperator:
      place = "operator " + std::to_string(d.index);
      if (d.index < program.operators.size()) {
        place += std::string(" (") + schema::EnumNameOpKind(program.operators[d.index]->kind) + ")";
      }
      break;
    case Where::kInput: place = "graph input " + std::to_string(d.index); break;
    case Where::kOutput: place = "graph output " + std::to_string(d.index); break;
  }
  return place + ": " + d.reason;
}

std::vector<uint8_t> pack(const schema::ProgramT& program) {
  flatbuffers::FlatBufferBuilder builder(1024 + program.constants.size());
  builder.Finish(schema::Program::Pack(builder, &program), schema::ProgramIdentifier());
  return {builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize()};
}

}  // namespace

uint32_t ConstantPool::add(std::span<const uint8_t> bytes) {
  const size_t offset = (bytes_.size() + kConstantAlignment - 1) / kConstantAlignment *
                        kConstantAlignment;
  if (offset + bytes.size() > UINT32_MAX) {
    throw InputError("constants exceed 4 GiB");
  }
  bytes_.resize(offset, 0);
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  return static_cast<uint32_t>(offset);
}

std::vector<uint8_t> emit_program(schema::ProgramT program) {
  program.version = runtime::kFormatVersion;
  write_stage_words(program);
  write_call_words(program);
  // Load it back exactly as a device would: from a 16-byte aligned copy.
  const AlignedBuffer bytes(pack(program));
  runtime::LoadDiagnostic diagnostic;
  const auto loaded = load_program(bytes.span(), &diagnostic);
  if (!loaded.ok()) {
    const std::string message = std::string("emit: ") + describe(diagnostic, program) + " (" +
                                runtime::to_string(loaded.error()) + ")";
    if (loaded.error() == runtime::Error::kUnsupported) throw InputError(message);
    throw std::logic_error(message);
  }
  return {bytes.data(), bytes.data() + bytes.size()};
}

void write_stage_words(schema::ProgramT& program) {
  const size_t stages = std::min(program.stages.size(), program.stage_calls.size());
  if (stages == 0) return;
  for (size_t k = 0; k < stages; ++k) {
    size_t words = 0;
    for (uint32_t op = program.stages[k].first();
         op <= program.stages[k].last() && op < program.operators.size(); ++op) {
      words += runtime::stage_row_word_count(program.operators[op]->kind);
    }
    program.stage_calls[k]->args.assign(words, 0);
  }
  // The operators compute their words from the packed form the runtime reads; the words' room
  // is already there, so packing again moves nothing else.
  const AlignedBuffer packed(pack(program));
  const schema::Program& view = *schema::GetProgram(packed.data());
  for (size_t k = 0; k < stages; ++k) {
    std::vector<int32_t>& args = program.stage_calls[k]->args;
    // A stage the runtime cannot run keeps zeros, which the loader refuses naming the stage.
    if (!runtime::stage_row_words(view, static_cast<uint32_t>(k), args.data(), args.size())) {
      std::fill(args.begin(), args.end(), 0);
    }
  }
}

void write_call_words(schema::ProgramT& program) {
  // The words hold arena and constant-blob offsets, which packing does not move.
  for (auto& op : program.operators) op->call.clear();
  const AlignedBuffer packed(pack(program));
  const schema::Program& view = *schema::GetProgram(packed.data());
  for (uint32_t i = 0; i < program.operators.size(); ++i) {
    int32_t words[runtime::kMaxOperatorCallWords];
    // An operator the runtime cannot call keeps none, which the loader refuses naming it.
    const int count = runtime::operator_call_words(view, i, words);
    if (count > 0) program.operators[i]->call.assign(words, words + count);
  }
}

runtime::Result<runtime::Program> load_program(std::span<const uint8_t> bytes,
                                               runtime::LoadDiagnostic* diagnostic) {
  std::vector<uint32_t> workspace(
      runtime::load_workspace_words(runtime::kMaxTensors, runtime::kMaxOperators));
  return runtime::Program::load(bytes.data(), bytes.size(), workspace.data(), workspace.size(),
                                diagnostic);
}

std::unique_ptr<schema::ProgramT> read_program(std::span<const uint8_t> bytes) {
  const AlignedBuffer copy(bytes);
  runtime::LoadDiagnostic diagnostic;
  const auto loaded = load_program(copy.span(), &diagnostic);
  if (!loaded.ok()) {
    throw InputError(std::string(runtime::to_string(loaded.error())) + ": " + diagnostic.reason);
  }
  return std::unique_ptr<schema::ProgramT>(schema::GetProgram(copy.data())->UnPack());
}

namespace {

[[noreturn]] void cannot_write(const std::string& path, const std::string& reason) {
  throw InputError(path + ": cannot write: " + reason);
}

// Writes all of `bytes` to `fd`; returns 0 or the errno of the failure.
int write_all(int fd, std::span<const uint8_t> bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    written += static_cast<size_t>(n);
  }
  return 0;
}

// The final target of `path` through any symbolic links (relative links resolve against the
// link's folder); `path` itself when it is not a link.
std::string resolve_links(const std::string& path) {
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    std::string link(static_cast<size_t>(st.st_size > 0 ? st.st_size : 255) + 1, '\0');
    const ssize_t n = ::readlink(current.c_str(), link.data(), link.size());
    if (n < 0) cannot_write(path, std::strerror(errno));
    link.resize(static_cast<size_t>(n));
    const std::filesystem::path next(link);
    current = next.is_absolute()
                  ? link
                  : (std::filesystem::path(current).parent_path() / next).string();
  }
  cannot_write(path, std::strerror(ELOOP));
}

}  // namespace

OutputFiles::~OutputFiles() { discard(); }

void OutputFiles::discard() {
  for (Entry& e : entries_) {
    if (!e.committed && !e.temp.empty()) ::unlink(e.temp.c_str());
  }
}

void OutputFiles::add(const std::string& path, std::string_view text) {
  add(path, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

void OutputFiles::add(const std::string& path, std::span<const uint8_t> bytes) {
  Entry e;
  e.path = path;
  if (path.empty()) cannot_write("''", "empty file name");
  if (path == "-") {
    e.direct_bytes.assign(bytes.begin(), bytes.end());
    entries_.push_back(std::move(e));
    return;
  }
  e.target = resolve_links(path);
  struct stat st;
  mode_t mode = 0;
  if (::stat(e.target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) cannot_write(path, "is a directory");
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      e.direct_bytes.assign(bytes.begin(), bytes.end());
      entries_.push_back(std::move(e));
      return;
    }
    if (!S_ISREG(st.st_mode)) cannot_write(path, "not a regular file, character device or FIFO");
    e.existed = true;
    mode = st.st_mode & 07777;
  } else if (errno != ENOENT) {
    cannot_write(path, std::strerror(errno));
  } else {
    // mkstemp creates 0600; a new file gets the usual permissions.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  e.temp = e.target + ".tmp-XXXXXX";
  const int fd = ::mkstemp(e.temp.data());
  if (fd < 0) cannot_write(path, std::strerror(errno));
  int error = write_all(fd, bytes);
  if (error == 0 && (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0)) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlink(e.temp.c_str());
    cannot_write(path, std::strerror(error));
  }
  entries_.push_back(std::move(e));
}

void OutputFiles::commit() {
  auto fail = [&](const Entry& e, int error) {
    // Undo what can be undone: files this set created go again; replaced files stay replaced.
    for (Entry& done : entries_) {
      if (done.committed && !done.temp.empty() && !done.existed) ::unlink(done.target.c_str());
    }
    discard();
    entries_.clear();
    cannot_write(e.path == "-" ? "standard output" : e.path, std::strerror(error));
  };
  for (Entry& e : entries_) {
    if (!e.temp.empty()) continue;
    if (e.path == "-") {
      std::fflush(stdout);
      const size_t n = std::fwrite(e.direct_bytes.data(), 1, e.direct_bytes.size(), stdout);
      if (n != e.direct_bytes.size() || std::fflush(stdout) != 0 || std::ferror(stdout)) {
        fail(e, errno != 0 ? errno : EIO);
      }
    } else {
      const int fd = ::open(e.target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (fd < 0) fail(e, errno);
      int error = write_all(fd, e.direct_bytes);
      if (::close(fd) != 0 && error == 0) error = errno;
      if (error != 0) fail(e, error);
    }
  }
  for (Entry& e : entries_) {
    if (e.temp.empty()) continue;
    if (std::rename(e.temp.c_str(), e.target.c_str()) != 0) fail(e, errno);
    e.committed = true;
  }
  entries_.clear();
}

void write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  OutputFiles files;
  files.add(path.string(), bytes);
  files.commit();
}

void flush_stdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int error = errno != 0 ? errno : EIO;
    std::clearerr(stdout);
    throw InputError(std::string("standard output: cannot write: ") + std::strerror(error));
  }
}

void AlignedBuffer::Free::operator()(uint8_t* p) const {
  ::operator delete[](p, std::align_val_t(alignment));
}

AlignedBuffer::AlignedBuffer(size_t size, size_t alignment)
    : data_(static_cast<uint8_t*>(::operator new[](size == 0 ? 1 : size, std::align_val_t(alignment))),
            Free{alignment}),
      size_(size) {
  std::memset(data_.get(), 0, size == 0 ? 1 : size);
}

AlignedBuffer::AlignedBuffer(std::span<const uint8_t> bytes) : AlignedBuffer(bytes.size()) {
  if (!bytes.empty()) std::memcpy(data_.get(), bytes.data(), bytes.size());
}

AlignedBuffer read_file_aligned(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InputError(path.string() + ": cannot open: " +
                     (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw InputError(path.string() + ": cannot open: " + std::strerror(errno));
  const std::streamoff size = in.tellg();
  if (size < 0) throw InputError(path.string() + ": cannot read the file");
  AlignedBuffer buffer(static_cast<size_t>(size));
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(buffer.data()), size)) {
    throw InputError(path.string() + ": cannot read the file");
  }
  return buffer;
}

}  // namespace mote::emit
