//===- ToolSupport.cpp - What every dd-* tool does the same way -----------===//
//
// The output file is opened only when the first bytes arrive, which the
// writers send only once the graph is known to serialize (the binary writer
// sends its whole buffer at once), so a graph that fails leaves an existing
// file alone without being gathered in memory first; ToolOutputFile removes
// the file again if writing fails half way (a full disk).
//
// An existing regular file is unlinked, not truncated, before the new one is
// written: ext4 (auto_da_alloc) flushes a file rewritten over a truncated one
// when it is closed, which made writing a 21 MB .ddir take 3-5 times longer
// than writing a new file; and an input still mapped from the same path keeps
// its old contents instead of being cut short under the reader.
//
//===----------------------------------------------------------------------===//

#include "daydream/Tools/ToolSupport.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/TextFormat.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <climits>

using namespace dd;

namespace {

/// A stream to a file that is opened on the first write, or by finish().
class LazyOutputFile : public llvm::raw_ostream {
public:
  explicit LazyOutputFile(llvm::StringRef Path) : Path(Path) {}
  ~LazyOutputFile() override { flush(); }

  /// Writes what is buffered and keeps the file.
  llvm::Error finish();

private:
  void write_impl(const char *Ptr, size_t Size) override {
    if (open())
      File->os().write(Ptr, Size);
    Pos += Size;
  }
  uint64_t current_pos() const override { return Pos; }
  bool open();

  std::string Path;
  std::unique_ptr<llvm::ToolOutputFile> File;
  std::error_code OpenError;
  uint64_t Pos = 0;
};

/// Unlinks Path if it names a regular file with no other links (a symlink, a
/// device or a hard-linked file is written through, as before).
static void unlinkOldOutput(llvm::StringRef Path) {
  llvm::sys::fs::file_status Status;
  if (Path == "-" || llvm::sys::fs::status(Path, Status, /*Follow=*/false) ||
      Status.type() != llvm::sys::fs::file_type::regular_file ||
      Status.getLinkCount() != 1)
    return;
  // Failing to unlink (a read-only directory) is not an error here: opening
  // the file then reports what is wrong, or truncates it as before.
  (void)llvm::sys::fs::remove(Path);
}

bool LazyOutputFile::open() {
  if (!File && !OpenError) {
    unlinkOldOutput(Path);
    File = std::make_unique<llvm::ToolOutputFile>(Path, OpenError,
                                                  llvm::sys::fs::OF_None);
    if (OpenError)
      File.reset();
  }
  return File != nullptr;
}

llvm::Error LazyOutputFile::finish() {
  flush();
  if (!open())
    return llvm::createStringError(OpenError, "%s: %s", Path.c_str(),
                                   OpenError.message().c_str());
  llvm::raw_fd_ostream &OS = File->os();
  OS.flush();
  if (OS.has_error()) {
    std::error_code EC = OS.error();
    OS.clear_error();
    return llvm::createStringError(EC, "%s: write failed: %s", Path.c_str(),
                                   EC.message().c_str());
  }
  File->keep();
  return llvm::Error::success();
}

} // namespace

void dd::keepFreedMemory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

BoolFlag::BoolFlag(llvm::StringRef Name, llvm::StringRef Desc,
                   llvm::cl::OptionCategory &Cat) {
  auto &Registered = llvm::cl::getRegisteredOptions();
  auto It = Registered.find(Name);
  if (It != Registered.end()) {
    Shared = It->second;
    Shared->addCategory(Cat);
    Shared->setDescription(Desc);
    Shared->setHiddenFlag(llvm::cl::NotHidden);
    return;
  }
  Own = std::make_unique<llvm::cl::opt<bool>>(Name, llvm::cl::desc(Desc),
                                              llvm::cl::cat(Cat));
}

// A shared option may store its value anywhere (time-passes uses external
// storage), so only its occurrence is read.
bool BoolFlag::isSet() const {
  return Own ? bool(*Own) : Shared->getNumOccurrences() > 0;
}

int dd::reportError(llvm::StringRef Tool, llvm::Error E) {
  return reportError(Tool, llvm::toString(std::move(E)));
}

int dd::reportError(llvm::StringRef Tool, const llvm::Twine &Message) {
  llvm::errs() << Tool << ": ";
  llvm::WithColor::error(llvm::errs(), "") << Message << "\n";
  return 1;
}

void dd::reportWarning(llvm::StringRef Tool, const llvm::Twine &Message) {
  llvm::errs() << Tool << ": ";
  llvm::WithColor::warning(llvm::errs(), "") << Message << "\n";
}

std::string dd::formatDuration(double Ns) {
  if (Ns >= 1e6)
    return llvm::formatv("{0:f3} ms", Ns / 1e6).str();
  if (Ns >= 1e3)
    return llvm::formatv("{0:f1} us", Ns / 1e3).str();
  return llvm::formatv("{0:f0} ns", Ns).str();
}

llvm::Error dd::checkBinaryOutputAllowed(llvm::StringRef OutputPath, bool Text,
                                         bool Force) {
  if (Text || Force || OutputPath != "-" || !llvm::outs().is_displayed())
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "refusing to write a binary graph to a terminal; use -S for text, "
      "-o FILE, or -f to force");
}

llvm::Error dd::writeTextFile(llvm::StringRef Contents,
                              llvm::StringRef OutputPath) {
  LazyOutputFile Out(OutputPath);
  Out << Contents;
  return Out.finish();
}

llvm::Error dd::writeGraphFile(const Graph &G, llvm::StringRef OutputPath,
                               bool Text) {
  LazyOutputFile Out(OutputPath);
  if (llvm::Error E = Text ? printTextGraph(G, Out) : writeBinaryGraph(G, Out))
    return E;
  return Out.finish();
}
