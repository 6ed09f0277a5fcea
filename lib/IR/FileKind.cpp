//===- FileKind.cpp - What a file given to the wrong tool is --------------===//

#include "daydream/IR/FileKind.h"
#include "daydream/IR/IRReader.h"

#include "llvm/Support/FileSystem.h"

using namespace dd;
using llvm::StringRef;

FileKind dd::sniffFileKind(StringRef Name, StringRef Bytes) {
  if (looksLikeBinaryIR(Bytes))
    return FileKind::DdirBinary;
  if (Bytes.startswith("\x1f\x8b"))
    return FileKind::Gzip;
  if (Bytes.startswith(StringRef("SQLite format 3\0", 16)))
    return FileKind::NsysSqlite;
  if (Bytes.startswith(CuptiRecordsMagic))
    return FileKind::CuptiRecords;
  if (Name.endswith(".nsys-rep") || Name.endswith(".qdrep"))
    return FileKind::NsysReport;
  StringRef Text = Bytes;
  Text.consume_front("\xEF\xBB\xBF");
  Text = Text.ltrim(" \t\r\n");
  if (Text.startswith("{") || Text.startswith("["))
    return FileKind::Json;
  // Comment lines (';') may come before the header.
  while (Text.startswith(";")) {
    size_t End = Text.find('\n');
    Text = End == StringRef::npos ? StringRef() : Text.drop_front(End + 1);
    Text = Text.ltrim(" \t\r\n");
  }
  if (Text.startswith("ddir ") || Text.startswith("ddir\t"))
    return FileKind::DdirText;
  if (Text.startswith("ddjob ") || Text.startswith("ddjob\t"))
    return FileKind::DdJob;
  return FileKind::Unknown;
}

FileKind dd::sniffFileKindOf(StringRef Path) {
  auto FD = llvm::sys::fs::openNativeFileForRead(Path);
  if (!FD) {
    llvm::consumeError(FD.takeError());
    return FileKind::Unknown;
  }
  char Head[256];
  auto Got = llvm::sys::fs::readNativeFile(*FD, Head);
  llvm::sys::fs::closeFile(*FD);
  if (!Got) {
    llvm::consumeError(Got.takeError());
    return FileKind::Unknown;
  }
  return sniffFileKind(Path, StringRef(Head, *Got));
}

std::string dd::wrongKindHint(FileKind K, StringRef Name, bool WantedGraph) {
  // A pipe's "<stdin>" is "-" on dd-import's command line.
  StringRef Arg = Name == "<stdin>" ? StringRef("-") : Name;
  std::string Import = ("`dd-import " + Arg + " -o graph.ddir` reads it").str();
  if (WantedGraph)
    switch (K) {
    case FileKind::Gzip:
      return "is gzip-compressed, not a .ddir graph (a .json.gz trace?): " +
             Import;
    case FileKind::Json:
      return "is JSON (a PyTorch profiler trace?), not a .ddir graph: " +
             Import;
    case FileKind::NsysSqlite:
      return "is an SQLite database (an Nsight Systems export?), not a "
             ".ddir graph: " +
             Import;
    case FileKind::CuptiRecords:
      return "is dd-trace's CUPTI records, not a .ddir graph: " + Import;
    case FileKind::NsysReport:
      return ("is an Nsight Systems report, not a .ddir graph: `nsys export "
              "--type sqlite " +
              Name + "`, then dd-import the .sqlite")
          .str();
    case FileKind::DdJob:
      return "is a split job's file (dd-import -split), which dd-opt, dd-sim "
             "and dd-diff read, but not this way";
    default:
      return "";
    }
  switch (K) {
  case FileKind::DdirBinary:
  case FileKind::DdirText:
    return "is already a Daydream graph (.ddir), not a trace: dd-opt, dd-sim "
           "and dd-diff read it";
  case FileKind::DdJob:
    return "is a split job's file (.ddjob), not a trace: dd-opt, dd-sim and "
           "dd-diff read it";
  case FileKind::NsysReport:
    return ("is an Nsight Systems report, which only nsys reads: `nsys export "
            "--type sqlite " +
            Name + "`, then dd-import the .sqlite")
        .str();
  default:
    return "";
  }
}
