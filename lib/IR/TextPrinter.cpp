//===- TextPrinter.cpp - Print the .ddir text form ------------------------===//
//
// Streams a graph as text in canonical order: tasks renumbered by their
// position in that order, then the canonical edge list, then the notes of
// live tasks, then the memory events sorted by time. Attributes equal to
// their default are left out, which keeps files short and diffs focused, and
// doubles are printed with just enough digits to read back bit for bit, so
// that text -> binary is lossless.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/TextFormat.h"
#include "daydream/Support/ShortestDouble.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>

using namespace dd;
using llvm::raw_ostream;
using llvm::StringRef;

namespace {

class Printer {
public:
  Printer(const Graph &G, const CanonicalOrder &C, raw_ostream &OS)
      : G(G), C(C), OS(OS) {}
  void print();

private:
  /// The string \p Id, or "" if it is out of range, so that printing an
  /// unverified graph cannot crash.
  StringRef str(StrId Id) const {
    return Id < G.strings().size() ? G.str(Id) : StringRef();
  }
  void printString(StringRef S);
  void printDouble(double V);
  /// Prints " Key=V" unless V is +0.0 (a -0.0 is kept, it is a different
  /// binary value).
  void printPeak(StringRef Key, double V);
  void printMetadata();
  void printLanesAndLayers();
  void printTask(TaskId Old, size_t NewId);
  std::vector<TaskNote> liveNotes() const;
  void printNotes(llvm::ArrayRef<TaskNote> Notes);
  void printMemoryEvents();

  const Graph &G;
  const CanonicalOrder &C;
  raw_ostream &OS;
};

void Printer::printString(StringRef S) {
  OS << '"';
  // Runs of plain bytes are written at once; most names need no escapes.
  size_t RunStart = 0;
  for (size_t I = 0, E = S.size(); I != E; ++I) {
    unsigned char Ch = S[I];
    if (Ch >= 0x20 && Ch != 0x7f && Ch != '"' && Ch != '\\')
      continue;
    OS << S.slice(RunStart, I);
    RunStart = I + 1;
    switch (Ch) {
    case '"':
      OS << "\\\"";
      break;
    case '\\':
      OS << "\\\\";
      break;
    case '\n':
      OS << "\\n";
      break;
    case '\t':
      OS << "\\t";
      break;
    case '\r':
      OS << "\\r";
      break;
    default:
      OS << "\\x" << llvm::hexdigit(Ch >> 4) << llvm::hexdigit(Ch & 15);
      break;
    }
  }
  OS << S.drop_front(RunStart) << '"';
}

void Printer::printDouble(double V) { printShortestDouble(OS, V); }

void Printer::printPeak(StringRef Key, double V) {
  if (V == 0 && !std::signbit(V))
    return;
  OS << ' ' << Key << '=';
  printDouble(V);
}

void Printer::printMetadata() {
  const Metadata &M = G.metadata();
  if (!M.Producer.empty()) {
    OS << "producer ";
    printString(M.Producer);
    OS << '\n';
  }
  if (!M.SourceFormat.empty()) {
    OS << "source ";
    printString(M.SourceFormat);
    OS << '\n';
  }
  for (const Device &D : M.Devices) {
    OS << "device " << D.Index << ' ';
    printString(D.Name);
    if (D.SmCount != 0)
      OS << " sms=" << D.SmCount;
    if (D.MemoryBytes != 0)
      OS << " memory=" << D.MemoryBytes;
    printPeak("fp32", D.PeakFp32Tflops);
    printPeak("fp16", D.PeakFp16Tflops);
    printPeak("bf16", D.PeakBf16Tflops);
    printPeak("bw", D.MemoryBandwidthGBps);
    OS << '\n';
  }
  for (const RankInfo &R : M.Ranks) {
    OS << "rank " << R.Rank;
    if (R.WorldSize != 0)
      OS << " world=" << R.WorldSize;
    if (!R.Host.empty()) {
      OS << " host=";
      printString(R.Host);
    }
    if (R.CopyOf != -1)
      OS << " copy-of=" << R.CopyOf;
    OS << '\n';
  }
  for (const PipelineRun &P : M.Pipelines) {
    OS << "pipeline ";
    printString(P.Pipeline);
    OS << " tool=";
    printString(P.Tool);
    OS << " input=";
    printString(P.Input);
    OS << '\n';
  }
}

void Printer::printLanesAndLayers() {
  for (LaneId I = 0, E = G.numLanes(); I != E; ++I) {
    const Lane &L = G.lane(I);
    OS << "lane @" << I << ' ' << toString(L.Kind) << ' ';
    printString(str(L.Name));
    if (L.NativeId != 0)
      OS << " native=" << L.NativeId;
    if (L.Rank != -1)
      OS << " rank=" << L.Rank;
    if (L.Device != -1)
      OS << " device=" << L.Device;
    if (L.Order != LaneOrder::InOrder)
      OS << " order=" << toString(L.Order);
    OS << '\n';
  }
  for (LayerId I = 0, E = G.numLayers(); I != E; ++I) {
    const Layer &L = G.layer(I);
    OS << "layer #" << I << ' ';
    printString(str(L.Name));
    if (L.Parent != NoId)
      OS << " parent=#" << L.Parent;
    OS << '\n';
  }
  for (const Iteration &It : G.iterations()) {
    OS << "iteration ";
    printString(str(It.Name));
    if (It.StartNs != 0)
      OS << " start=" << It.StartNs;
    if (It.MeasuredNs != -1)
      OS << " measured=" << It.MeasuredNs;
    if (It.Rank != -1)
      OS << " rank=" << It.Rank;
    OS << '\n';
  }
}

void Printer::printTask(TaskId Old, size_t NewId) {
  const Task &T = G.task(Old);
  OS << "task %" << NewId << ' ' << toString(T.Kind) << " @" << T.Lane << ' ';
  printString(str(T.Name));
  OS << " start=" << T.StartNs << " dur=" << T.DurationNs;
  if (T.GapNs != 0)
    OS << " gap=" << T.GapNs;
  if (T.Layer != NoId)
    OS << " layer=#" << T.Layer;
  if (T.Phase != Phase::Other)
    OS << " phase=" << toString(T.Phase);
  if (T.Correlation != 0)
    OS << " corr=" << T.Correlation;
  if (T.Flags != 0)
    OS << " flags=" << unsigned(T.Flags);
  if (T.Attrs == NoId || T.Attrs >= G.attrSlots().size()) {
    OS << '\n';
    return;
  }
  // All seven or none: whether a task has a TaskAttrs at all is part of the
  // graph, even when every field is zero.
  const TaskAttrs &A = G.attrSlots()[T.Attrs];
  OS << " bytes=" << A.Bytes << " flops=" << A.Flops << " grid=" << A.Grid[0]
     << ',' << A.Grid[1] << ',' << A.Grid[2] << " block=" << A.Block[0] << ','
     << A.Block[1] << ',' << A.Block[2] << " smem=" << A.SharedMemBytes
     << " regs=" << unsigned(A.RegistersPerThread)
     << " copy=" << unsigned(A.CopyKind);
  // Written only when known: graphs from before it read as they printed.
  if (A.DType != 0)
    OS << " dtype=" << toString(DType(A.DType));
  OS << '\n';
}

std::vector<TaskNote> Printer::liveNotes() const {
  std::vector<TaskNote> Notes;
  for (const TaskNote &N : G.notes())
    if (N.Task < G.numTaskSlots() && G.isLive(N.Task))
      Notes.push_back(TaskNote{C.NewId[N.Task], N.Key, N.Value});
  // Stable, so that notes of one task keep the order they were added in.
  std::stable_sort(
      Notes.begin(), Notes.end(),
      [](const TaskNote &A, const TaskNote &B) { return A.Task < B.Task; });
  return Notes;
}

void Printer::printNotes(llvm::ArrayRef<TaskNote> Notes) {
  for (const TaskNote &N : Notes) {
    OS << "note %" << N.Task << ' ';
    printString(str(N.Key));
    OS << ' ';
    printString(str(N.Value));
    OS << '\n';
  }
}

void Printer::printMemoryEvents() {
  for (const MemoryEvent &M : canonicalMemoryEvents(G, C)) {
    OS << "memory time=" << M.TimeNs << " bytes=" << M.Bytes;
    if (M.TotalAllocated != -1)
      OS << " total=" << M.TotalAllocated;
    if (M.TotalReserved != -1)
      OS << " reserved=" << M.TotalReserved;
    if (M.Address != 0)
      OS << " addr=" << M.Address;
    if (M.Lane != NoId)
      OS << " lane=@" << M.Lane;
    if (M.Device != -1)
      OS << " device=" << M.Device;
    if (M.Task != NoId)
      OS << " task=%" << M.Task;
    if (M.Category != CategoryByRule)
      OS << " category=" << toString(MemoryCategory(M.Category));
    if (M.Flags)
      OS << " flags=" << unsigned(M.Flags);
    OS << '\n';
  }
}

void Printer::print() {
  std::vector<Edge> Edges = canonicalEdges(G, C);
  std::vector<TaskNote> Notes = liveNotes();
  // What follows, counted, so that a reader refuses a file cut short; a
  // count of zero is left out, like every other default.
  OS << "ddir 1\ncounts tasks=" << C.Order.size();
  auto Count = [&](const char *Key, size_t N) {
    if (N)
      OS << ' ' << Key << '=' << N;
  };
  Count("edges", Edges.size());
  Count("notes", Notes.size());
  Count("memory", G.memoryEvents().size());
  OS << '\n';
  printMetadata();
  printLanesAndLayers();
  for (size_t I = 0, E = C.Order.size(); I != E; ++I)
    printTask(C.Order[I], I);
  for (const Edge &E : Edges)
    OS << "edge %" << E.Src << " -> %" << E.Dst << ' ' << toString(E.Kind)
       << '\n';
  printNotes(Notes);
  printMemoryEvents();
}

} // namespace

llvm::Error dd::printTextGraph(const Graph &G, raw_ostream &OS) {
  llvm::Expected<CanonicalOrder> C = computeCanonicalOrder(G);
  if (!C)
    return C.takeError();
  Printer(G, *C, OS).print();
  return llvm::Error::success();
}
