//===- RankTableFile.cpp - A rank's collective table as a file ------------===//
//
// A table file is the job file's lines for its rank (JobFile.h: "ddcoll 1",
// `world`, the `rank` line), which a person or `head` can read, then the
// table as a graph. The graph is binary unless the import wrote text (-S):
// every process of `mpirun dd-sim` reads every other rank's table
// (JobShare.h), and a million-task rank's table of 6,850 records is read
// in under a millisecond in binary against about 9 in text. A binary
// graph follows the line "ddir-binary", at the next multiple of 8 bytes
// (zeros between), where its 64-bit records lie aligned as in a file of
// its own; a text graph follows the head directly, as its "ddir 1" line.
//
//===----------------------------------------------------------------------===//

#include "SplitJobFiles.h"

#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/FileKind.h"
#include "daydream/IR/IRReader.h"
#include "daydream/IR/TextFormat.h"
#include "daydream/Import/SplitJob.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace dd;
using namespace dd::import;
using llvm::StringRef;

namespace {

/// The line before a binary graph.
constexpr StringRef BinaryLine = "ddir-binary\n";
constexpr uint64_t BinaryAlignment = 8;

} // namespace

llvm::Error dd::import::writeRankTableFile(int32_t World,
                                           const JobFile::Rank &Entry,
                                           const Graph &Table, bool Text,
                                           llvm::raw_ostream &OS) {
  OS << "ddcoll " << JobFile::Version << "\n"
     << "; rank " << Entry.Rank
     << "'s collective table: `dd-import -link` of every rank's makes "
        "the job file\n"
     << "world " << World << "\n";
  printRankLine(Entry, OS);
  if (Text)
    return printTextGraph(Table, OS);
  OS << BinaryLine;
  const uint64_t At = OS.tell();
  OS.write_zeros(llvm::alignTo(At, BinaryAlignment) - At);
  return writeBinaryGraph(Table, OS);
}

llvm::Expected<ReadTable> dd::import::readRankTableFile(StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return jobError(Path + ": " + Buf.getError().message());
  StringRef Bytes = (*Buf)->getBuffer();
  // The job-file lines end where the graph's first line starts: "ddir 1"
  // (text) or "ddir-binary". Neither can start a line of the head.
  size_t GraphAt = Bytes.find("\nddir");
  if (GraphAt == StringRef::npos) {
    if (Bytes.startswith("ddcoll"))
      return jobError(Path + ": no collective table after its rank line "
                             "(truncated?)");
    std::string Hint = sniffFileKind(Path, Bytes) == FileKind::DdirBinary
                           ? " (a rank's graph: give its .ddcoll table)"
                           : "";
    return jobError(Path +
                    ": not a rank's collective table (expected "
                    "'ddcoll 1' first)" +
                    Hint);
  }
  ++GraphAt;
  auto Head = parseJobFilePart(Path, "ddcoll", Bytes.take_front(GraphAt));
  if (!Head)
    return Head.takeError();
  if (Head->Ranks.size() != 1)
    return jobError(Path +
                    ": a collective table describes one rank, this "
                    "one " +
                    llvm::Twine(Head->Ranks.size()));
  ReadTable T;
  T.Entry = Head->Ranks.front();
  T.World = Head->World;
  T.Path = Path.str();
  StringRef GraphBytes = Bytes.drop_front(GraphAt);
  const bool Binary = GraphBytes.startswith(BinaryLine);
  if (Binary) {
    const uint64_t At =
        llvm::alignTo(GraphAt + BinaryLine.size(), BinaryAlignment);
    GraphBytes = Bytes.drop_front(std::min<uint64_t>(At, Bytes.size()));
  }
  // The graph's strings point into the file's buffer, which it keeps.
  auto G = readGraph(llvm::MemoryBuffer::getMemBuffer(
      GraphBytes, Path, /*RequiresNullTerminator=*/false));
  if (!G)
    return G.takeError();
  G->holdBuffer(std::move(*Buf));
  T.Table = std::move(*G);
  return std::move(T);
}
