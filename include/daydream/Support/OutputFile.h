//===- OutputFile.h - Outputs that appear whole or not at all ---*- C++ -*-===//
//
// Every file a dd-* tool writes is written under a temporary name in the
// target's directory and renamed over the target only once it is complete
// and flushed (LLVM's sys::fs::TempFile discipline). So a kill, a full disk
// or a file-size limit never leaves a partial file under the final name and
// never loses the old one, and an input mapped from the same file (through
// a symbolic or a hard link) keeps its pages: the old inode lives on until
// it is unmapped. A symbolic link as the target is followed, so the link
// stays and the file it names is replaced; a hard link is replaced by a new
// file, as `sed -i` does, and its other names keep the old contents.
//
// The temporary names are kept where the signal handlers of
// Support/ToolSignals.h can remove them (removePendingOutputs).
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SUPPORT_OUTPUTFILE_H
#define DAYDREAM_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace dd {

/// One output being written: to a temporary file beside \p Path, or to
/// stdout for "-". Destroying it without commit() removes the temporary.
class OutputFile {
public:
  /// Opens the temporary file (or stdout). Fails, naming \p Path, if the
  /// directory cannot take a new file.
  static llvm::Expected<std::unique_ptr<OutputFile>>
  create(llvm::StringRef Path);
  ~OutputFile();
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;

  llvm::raw_fd_ostream &os() { return *OS; }
  /// The name the output will have ("-" for stdout).
  llvm::StringRef path() const { return Path; }
  /// Where it is written until commit() (empty for stdout), for a caller
  /// that must read back what it wrote before deciding to keep it.
  llvm::StringRef temporaryPath() const { return Temp; }

  /// Flushes and renames the temporary over the target. On any failure the
  /// temporary is removed, the target is left as it was, and the error
  /// names the target and the cause ("File too large").
  llvm::Error commit();
  /// Removes the temporary; the target is left as it was.
  void discard();

private:
  OutputFile(std::string Path, std::string Target, std::string Temp, int FD);

  std::string Path;   // as given
  std::string Target; // the file renamed over: Path with links followed
  std::string Temp;   // empty for stdout
  int Slot = -1;      // in the pending-output table
  std::unique_ptr<llvm::raw_fd_ostream> OS;
  bool Done = false;
};

/// Unlinks every temporary output not yet committed. Async-signal-safe:
/// the signal, fatal-error and out-of-memory handlers call it.
void removePendingOutputs();

} // namespace dd

#endif // DAYDREAM_SUPPORT_OUTPUTFILE_H
