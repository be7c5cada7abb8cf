#include "compiler/emit/emit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>

#include "compiler/ir/error.h"
#include "mote/runtime/program.h"

namespace mote::emit {
namespace {

std::string describe(const runtime::LoadDiagnostic& d, const schema::ProgramT& program) {
  using Where = runtime::LoadDiagnostic::Where;
  std::string place;
  switch (d.where) {
    case Where::kProgram: place = "program"; break;
    case Where::kTensor:
      place = "tensor " + std::to_string(d.index);
      if (d.index < program.tensors.size() && !program.tensors[d.index]->name.empty()) {
        place += " (" + program.tensors[d.index]->name + ")";
      }
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
  flatbuffers::FlatBufferBuilder builder(1024 + program.constants.size());
  builder.Finish(schema::Program::Pack(builder, &program), schema::ProgramIdentifier());

  // Load it back exactly as a device would: from a 16-byte aligned copy.
  const AlignedBuffer bytes({builder.GetBufferPointer(), builder.GetSize()});
  runtime::LoadDiagnostic diagnostic;
  const auto loaded = runtime::Program::load(bytes.data(), bytes.size(), &diagnostic);
  if (!loaded.ok()) {
    const std::string message = std::string("emit: ") + describe(diagnostic, program) + " (" +
                                runtime::to_string(loaded.error()) + ")";
    if (loaded.error() == runtime::Error::kUnsupported) throw InputError(message);
    throw std::logic_error(message);
  }
  return {bytes.data(), bytes.data() + bytes.size()};
}

std::unique_ptr<schema::ProgramT> read_program(std::span<const uint8_t> bytes) {
  const AlignedBuffer copy(bytes);
  runtime::LoadDiagnostic diagnostic;
  const auto loaded = runtime::Program::load(copy.data(), copy.size(), &diagnostic);
  if (!loaded.ok()) {
    throw InputError(std::string(runtime::to_string(loaded.error())) + ": " + diagnostic.reason);
  }
  return std::unique_ptr<schema::ProgramT>(schema::GetProgram(copy.data())->UnPack());
}

void write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  const std::string target = path.string();
  std::string temp = target + ".tmp-XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) {
    throw InputError(target + ": cannot write: " + std::strerror(errno));
  }
  auto fail = [&](int error) {
    close(fd);
    unlink(temp.c_str());
    throw InputError(target + ": cannot write: " + std::strerror(error));
  };
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(errno);
    }
    written += static_cast<size_t>(n);
  }
  // mkstemp creates 0600; give the file the usual permissions of a new file.
  const mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || fsync(fd) != 0) fail(errno);
  if (close(fd) != 0) {
    const int error = errno;
    unlink(temp.c_str());
    throw InputError(target + ": cannot write: " + std::strerror(error));
  }
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    const int error = errno;
    unlink(temp.c_str());
    throw InputError(target + ": cannot write: " + std::strerror(error));
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
