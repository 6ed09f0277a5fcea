//===- IRReader.cpp - Read a graph in either form -------------------------===//
//
// The single entry point every tool uses to load a graph: pick the form by
// content, parse, verify, and prefix every error with the input's name.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/IRReader.h"
#include "Support/FreshMemory.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/FileKind.h"
#include "daydream/IR/TextFormat.h"
#include "daydream/IR/Verifier.h"

#include "llvm/Support/FileSystem.h"

using namespace dd;
using llvm::Expected;

bool dd::looksLikeBinaryIR(llvm::StringRef Bytes) {
  return Bytes.size() >= 8 && Bytes.substr(4, 4) == "DDIR";
}

static llvm::Error withName(llvm::StringRef Name, llvm::Error E) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 Name + ": " + llvm::toString(std::move(E)));
}

namespace {

/// A file mapped privately and writable (copy-on-write): what
/// parseBinaryGraphInPlace() needs to leave the task records where they are.
/// It keeps the file open, to map the task and edge records again with room
/// to grow (mapWithRoom()).
class PrivateFileBuffer : public llvm::MemoryBuffer {
public:
  PrivateFileBuffer(llvm::sys::fs::mapped_file_region Region,
                    llvm::sys::fs::file_t FD, llvm::StringRef Name)
      : Region(std::move(Region)), FD(FD), Name(Name.str()) {
    init(this->Region.data(), this->Region.data() + this->Region.size(),
         /*RequiresNullTerminator=*/false);
  }
  ~PrivateFileBuffer() override { closeFile(); }
  llvm::StringRef getBufferIdentifier() const override { return Name; }
  BufferKind getBufferKind() const override { return MemoryBuffer_MMap; }
  llvm::MutableArrayRef<char> writable() {
    return {Region.data(), Region.size()};
  }
  /// The file's bytes [\p Offset, \p Offset + \p Bytes) mapped again with
  /// room after them (GrowableFileMapping.h), or null.
  std::unique_ptr<GrowableFileMapping>
  mapWithRoom(uint64_t Offset, size_t Bytes, size_t Capacity) const {
#ifdef _WIN32
    return nullptr;
#else
    return GrowableFileMapping::map(FD, Offset, Bytes, Capacity);
#endif
  }
  /// Done mapping: the mappings outlive the descriptor.
  void closeFile() {
    if (FD != llvm::sys::fs::kInvalidFile)
      llvm::sys::fs::closeFile(FD);
  }

private:
  llvm::sys::fs::mapped_file_region Region;
  llvm::sys::fs::file_t FD;
  std::string Name;
};

/// Maps \p Path privately, or returns null (stdin, an empty file, anything
/// mmap refuses) for the caller to read it the ordinary way.
std::unique_ptr<PrivateFileBuffer> mapPrivately(llvm::StringRef Path) {
  if (Path == "-")
    return nullptr;
  Expected<llvm::sys::fs::file_t> FD =
      llvm::sys::fs::openNativeFileForRead(Path);
  if (!FD) {
    llvm::consumeError(FD.takeError());
    return nullptr;
  }
  std::unique_ptr<PrivateFileBuffer> Buf;
  llvm::sys::fs::file_status Status;
  if (!llvm::sys::fs::status(*FD, Status) &&
      Status.type() == llvm::sys::fs::file_type::regular_file &&
      Status.getSize() > 0) {
    std::error_code EC;
    llvm::sys::fs::mapped_file_region Region(
        *FD, llvm::sys::fs::mapped_file_region::priv, Status.getSize(), 0, EC);
    if (!EC)
      return std::make_unique<PrivateFileBuffer>(std::move(Region), *FD, Path);
  }
  llvm::sys::fs::closeFile(*FD);
  return Buf;
}

} // namespace

/// Parses and verifies \p Bytes, the contents of \p Buf; \p Writable, when
/// given, is the same bytes writable and private (see mapPrivately()), and
/// \p MapWithRoom maps its task and edge records again with room to grow.
static Expected<Graph> readBytes(llvm::MemoryBuffer &Buf,
                                 llvm::MutableArrayRef<char> Writable,
                                 MapWithRoomFn MapWithRoom = nullptr) {
  llvm::StringRef Name = Buf.getBufferIdentifier();
  llvm::StringRef Bytes = Buf.getBuffer();
  if (Bytes.empty())
    return withName(Name, llvm::createStringError(
                              llvm::inconvertibleErrorCode(), "file is empty"));
  const bool Binary = looksLikeBinaryIR(Bytes);
  // A trace handed to a graph tool: say what it is and what reads it.
  if (!Binary) {
    std::string Hint = wrongKindHint(sniffFileKind(Name, Bytes), Name,
                                     /*WantedGraph=*/true);
    if (!Hint.empty())
      return withName(
          Name, llvm::createStringError(llvm::inconvertibleErrorCode(), Hint));
  }
  // A mapped file's pages can be handed back once copied; a buffer read
  // into memory (stdin) cannot.
  const bool Mapped =
      Buf.getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap;
  Expected<Graph> G = !Binary ? parseTextGraph(Bytes)
                      : !Writable.empty()
                          ? parseBinaryGraphInPlace(Writable, MapWithRoom)
                      : Mapped ? parseMappedBinaryGraph(Bytes)
                               : parseBinaryGraph(Bytes);
  if (!G)
    return withName(Name, G.takeError());
  // The binary reader checks each task as it links it at its lane's end.
  if (llvm::Error E = Binary ? verifyAsRead(*G) : verifyGraph(*G))
    return withName(Name, std::move(E));
  return G;
}

Expected<Graph> dd::readGraph(std::unique_ptr<llvm::MemoryBuffer> Buf) {
  Expected<Graph> G = readBytes(*Buf, {});
  if (G)
    G->holdBuffer(std::move(Buf));
  return G;
}

Expected<Graph> dd::readGraphFile(llvm::StringRef Path, GraphUse Use) {
  // A regular file is mapped privately so that its task and edge records
  // need not be copied (TaskStore.h).
  if (std::unique_ptr<PrivateFileBuffer> Mapped =
          Use != GraphUse::Copy ? mapPrivately(Path) : nullptr) {
    // Records that will change go where they can grow, their pages made
    // private at once.
    auto MapWithRoom = [&](uint64_t Offset, size_t Bytes, size_t Capacity) {
      std::unique_ptr<GrowableFileMapping> Room =
          Mapped->mapWithRoom(Offset, Bytes, Capacity);
      if (Room)
        prefault(Room->data(), Room->data() + Bytes);
      return Room;
    };
    Expected<Graph> G = readBytes(
        *Mapped, Mapped->writable(),
        Use == GraphUse::Change ? MapWithRoomFn(MapWithRoom) : MapWithRoomFn());
    Mapped->closeFile();
    if (G)
      G->holdBuffer(std::move(Mapped));
    return G;
  }
  // Large files are memory-mapped; the buffer need not be NUL-terminated.
  auto BufOr =
      llvm::MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (std::error_code EC = BufOr.getError())
    return llvm::createStringError(
        EC, "%s: %s", (Path == "-" ? "<stdin>" : Path.str()).c_str(),
        EC.message().c_str());
  return readGraph(std::move(*BufOr));
}
