//===- OutputFile.cpp - Outputs that appear whole or not at all -----------===//
//
// The pending temporaries live in a fixed table of atomic pointers, so that
// a signal handler on any thread can take and unlink each of them without
// locks or allocation; whoever takes a slot's pointer (the handler or
// commit/discard) is the one that acts on it.
//
//===----------------------------------------------------------------------===//

#include "daydream/Support/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

using namespace dd;

namespace {

constexpr int PendingSlots = 64;
std::atomic<char *> Pending[PendingSlots];

int addPending(const std::string &Temp) {
  char *Copy = strdup(Temp.c_str());
  for (int I = 0; I < PendingSlots; ++I) {
    char *Expected = nullptr;
    if (Pending[I].compare_exchange_strong(Expected, Copy))
      return I;
  }
  // More outputs at once than any tool opens: this one is still written
  // and renamed, only not removed by a signal.
  free(Copy);
  return -1;
}

/// Takes the slot back; false if a handler already took (and unlinked) it.
bool takePending(int Slot) {
  if (Slot < 0)
    return true;
  char *Path = Pending[Slot].exchange(nullptr);
  free(Path);
  return Path != nullptr;
}

llvm::Error fileError(llvm::StringRef Path, std::error_code EC,
                      const llvm::Twine &What) {
  std::string Name = Path == "-" ? "<stdout>" : Path.str();
  return llvm::createStringError(EC, "%s: %s%s", Name.c_str(),
                                 What.str().c_str(), EC.message().c_str());
}

} // namespace

void dd::removePendingOutputs() {
  for (std::atomic<char *> &Slot : Pending)
    if (char *Path = Slot.exchange(nullptr))
      ::unlink(Path); // the string is leaked: free() is not signal-safe
}

OutputFile::OutputFile(std::string Path, std::string Target, std::string Temp,
                       int FD)
    : Path(std::move(Path)), Target(std::move(Target)), Temp(std::move(Temp)),
      OS(std::make_unique<llvm::raw_fd_ostream>(FD, /*shouldClose=*/FD != 1)) {
  if (!this->Temp.empty())
    Slot = addPending(this->Temp);
}

OutputFile::~OutputFile() {
  if (!Done)
    discard();
}

llvm::Expected<std::unique_ptr<OutputFile>>
OutputFile::create(llvm::StringRef Path) {
  namespace fs = llvm::sys::fs;
  if (Path == "-")
    return std::unique_ptr<OutputFile>(new OutputFile("-", "-", "", 1));

  std::string Target = Path.str();
  fs::file_status Link;
  if (!fs::status(Path, Link, /*Follow=*/false) &&
      Link.type() == fs::file_type::symlink_file) {
    llvm::SmallString<256> Real;
    if (!fs::real_path(Path, Real))
      Target = std::string(Real);
  }

  // A device, a pipe or a socket (-o /dev/null, -o /dev/stdout) is written
  // as it is: it cannot be renamed over and holds no old contents to keep.
  fs::file_status Old;
  bool Exists = !fs::status(Target, Old);
  if (Exists && Old.type() != fs::file_type::regular_file) {
    int FD;
    if (std::error_code EC =
            fs::openFileForWrite(Target, FD, fs::CD_OpenExisting))
      return fileError(Path, EC, "");
    return std::unique_ptr<OutputFile>(
        new OutputFile(Path.str(), Target, "", FD));
  }

  llvm::SmallString<256> Model(llvm::sys::path::parent_path(Target));
  llvm::sys::path::append(Model, "." + llvm::sys::path::filename(Target) +
                                     ".tmp-%%%%%%%%");
  unsigned Mode = Exists ? unsigned(Old.permissions())
                         : unsigned(fs::all_read | fs::all_write);
  int FD;
  llvm::SmallString<256> Temp;
  if (std::error_code EC =
          fs::createUniqueFile(Model, FD, Temp, fs::OF_None, Mode))
    return fileError(Path, EC,
                     EC == std::errc::no_such_file_or_directory
                         ? ""
                         : "cannot create a file beside it: ");
  // open() applied the umask; a replaced file keeps the mode it had.
  if (Exists)
    (void)fs::setPermissions(FD, Old.permissions());
  return std::unique_ptr<OutputFile>(
      new OutputFile(Path.str(), Target, std::string(Temp), FD));
}

llvm::Error OutputFile::commit() {
  OS->flush();
  if (!Temp.empty())
    OS->close(); // reports a failed close (NFS, quota) as a stream error
  if (OS->has_error()) {
    std::error_code EC = OS->error();
    discard();
    return fileError(Path, EC, "write failed: ");
  }
  if (Temp.empty()) {
    Done = true;
    return llvm::Error::success();
  }
  if (!takePending(Slot)) {
    // A handled signal removed it; the handler ends the process, so this
    // is reached only if it returned.
    Done = true;
    return fileError(Path, std::make_error_code(std::errc::interrupted),
                     "not written: ");
  }
  Slot = -1;
  if (std::error_code EC = llvm::sys::fs::rename(Temp, Target)) {
    (void)llvm::sys::fs::remove(Temp);
    Done = true;
    return fileError(Path, EC, "cannot replace it: ");
  }
  Done = true;
  return llvm::Error::success();
}

void OutputFile::discard() {
  if (Done)
    return;
  Done = true;
  OS->clear_error();
  if (!Temp.empty()) {
    OS->close();
    OS->clear_error();
    if (takePending(Slot))
      (void)llvm::sys::fs::remove(Temp);
    Slot = -1;
  }
}
