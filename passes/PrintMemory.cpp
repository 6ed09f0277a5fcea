//===- PrintMemory.cpp - Print the memory breakdown by category -----------===//
//
// print<memory>{json=false}
//
// Prints, per device, the peak of live memory and what it is made of in
// TBD's categories, how much each category allocated over the trace, and how
// the frees were paired (MemoryBreakdown.h has the rules). The JSON form adds
// the whole timeline. Memory events keep their recorded times, so this
// describes the trace, not a simulated what-if; it changes nothing.
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/MemoryBreakdown.h"
#include "daydream/Analysis/Simulation.h"
#include "daydream/IR/DeviceName.h"
#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Support/Units.h"

#include "llvm/Support/JSON.h"

#include <algorithm>
#include <climits>

using namespace dd;

namespace {

struct PrintMemoryOptions {
  bool Json = false;
};

void declare(PassOptionParser &P, PrintMemoryOptions &O) {
  P.add("json", O.Json, "print JSON instead of text");
}

/// The trace's first and last recorded instants: its tasks' and memory
/// events' (an allocation may come before the first task).
int64_t traceStart(const Graph &G) {
  int64_t First = INT64_MAX;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T))
      First = std::min(First, G.task(T).StartNs);
  for (const MemoryEvent &E : G.memoryEvents())
    First = std::min(First, E.TimeNs);
  return First == INT64_MAX ? 0 : First;
}
int64_t traceEnd(const Graph &G) {
  int64_t Last = INT64_MIN;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T))
      Last = std::max(Last, G.task(T).StartNs + G.task(T).DurationNs);
  for (const MemoryEvent &E : G.memoryEvents())
    Last = std::max(Last, E.TimeNs);
  return Last == INT64_MIN ? 0 : Last;
}

llvm::json::Object jsonCategories(const CategoryBytes &Bytes) {
  llvm::json::Object O;
  for (unsigned C = 0; C != NumMemoryCategories; ++C)
    O[toString(MemoryCategory(C))] = Bytes[C];
  return O;
}

class PrintMemory {
public:
  static constexpr const char *Name = "print<memory>";
  static constexpr const char *Description =
      "Print peak memory and a timeline by category (weights, gradients, "
      "activations, ...)";
  using OptionsT = PrintMemoryOptions;
  static constexpr auto Declare = &declare;
  static constexpr bool IsPrinter = true;

  explicit PrintMemory(PrintMemoryOptions O) : O(O) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    // The memory of the run as simulated, so that after a pass it is the
    // what-if's (MemoryBreakdown.h); a graph without events simulates
    // nothing for it.
    const SimResult *Run = nullptr;
    if (!G.memoryEvents().empty()) {
      auto Sim = simulatedRun(G, AM);
      if (!Sim)
        return Sim.takeError();
      Run = *Sim;
    }
    MemoryBreakdown B = computeMemoryBreakdown(G, Run);
    if (O.Json)
      printJson(G, B, AM.reportStream());
    else
      printText(G, B, AM.reportStream());
    return PreservedAnalyses::all();
  }

private:
  void printText(const Graph &G, const MemoryBreakdown &B,
                 llvm::raw_ostream &OS) const {
    OS << "print<memory>:\n";
    if (B.Devices.empty())
      OS << "  no memory events\n";
    // One unit for sizes, from the largest peak; times since the trace's
    // first task (JSON keeps raw bytes and the trace's own clock).
    int64_t Largest = 0;
    for (const DeviceMemory &D : B.Devices)
      Largest = std::max(Largest, D.Timeline[D.Peak].total());
    const SizeUnit Size = SizeUnit::forSize(Largest);
    const int64_t Origin = traceStart(G);
    const TimeUnit Time = TimeUnit::forSpan(traceEnd(G) - Origin);
    for (const DeviceMemory &D : B.Devices) {
      OS << "  device " << D.Device << " \"" << memoryDeviceName(G, D)
         << "\": " << D.Allocations << " allocations, " << D.Frees << " frees ("
         << D.PairedByAddress << " paired by address, " << D.PairedBySize
         << " by size, " << D.UnmatchedFrees << " unmatched of "
         << Size(D.UnmatchedFreeBytes) << ")\n";
      const MemorySample &Peak = D.Timeline[D.Peak];
      OS << "    peak " << Size(Peak.total()) << " at "
         << Time(Peak.TimeNs - Origin) << " since the trace's start";
      if (D.PeakIteration >= 0)
        OS << " in \"" << G.str(G.iterations()[D.PeakIteration].Name) << "\"";
      if (D.AllocatorPeak >= 0)
        OS << " (allocator's own peak total " << Size(D.AllocatorPeak) << ")";
      OS << "\n";
      for (unsigned C = 0; C != NumMemoryCategories; ++C)
        OS << "      " << toString(MemoryCategory(C)) << " "
           << Size(Peak.Live[C]) << " at peak, " << Size(D.AllocatedBytes[C])
           << " allocated in " << D.AllocationCount[C] << "\n";
    }
  }

  void printJson(const Graph &G, const MemoryBreakdown &B,
                 llvm::raw_ostream &OS) const {
    llvm::json::Array Categories;
    for (unsigned C = 0; C != NumMemoryCategories; ++C)
      Categories.push_back(toString(MemoryCategory(C)));
    llvm::json::Array Devices;
    for (const DeviceMemory &D : B.Devices) {
      // Rows of [time_ns, bytes of each category in "categories" order]:
      // a list of objects would repeat six keys per row.
      llvm::json::Array Timeline;
      for (const MemorySample &S : D.Timeline) {
        llvm::json::Array Row{S.TimeNs};
        for (int64_t Bytes : S.Live)
          Row.push_back(Bytes);
        Timeline.push_back(std::move(Row));
      }
      llvm::json::Object Counts;
      for (unsigned C = 0; C != NumMemoryCategories; ++C)
        Counts[toString(MemoryCategory(C))] = int64_t(D.AllocationCount[C]);
      const MemorySample &Peak = D.Timeline[D.Peak];
      llvm::json::Object Dev{
          {"device", D.Device},
          {"name", memoryDeviceName(G, D)},
          {"allocations", int64_t(D.Allocations)},
          {"frees", int64_t(D.Frees)},
          {"paired_by_address", int64_t(D.PairedByAddress)},
          {"paired_by_size", int64_t(D.PairedBySize)},
          {"unmatched_frees", int64_t(D.UnmatchedFrees)},
          {"unmatched_free_bytes", D.UnmatchedFreeBytes},
          {"peak_bytes", Peak.total()},
          {"peak_time_ns", Peak.TimeNs},
          {"peak_iteration", D.PeakIteration < 0
                                 ? llvm::json::Value(nullptr)
                                 : llvm::json::Value(G.str(
                                       G.iterations()[D.PeakIteration].Name))},
          {"peak_by_category", jsonCategories(Peak.Live)},
          {"allocated_by_category", jsonCategories(D.AllocatedBytes)},
          {"allocations_by_category", std::move(Counts)},
          {"timeline", std::move(Timeline)}};
      if (D.Rank >= 0)
        Dev["rank"] = D.Rank;
      if (D.AllocatorPeak >= 0)
        Dev["allocator_peak_bytes"] = D.AllocatorPeak;
      Devices.push_back(std::move(Dev));
    }
    llvm::json::Object Root{{"categories", std::move(Categories)},
                            {"devices", std::move(Devices)}};
    OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Root))) << "\n";
  }

  PrintMemoryOptions O;
};

} // namespace

PassInfo dd::passInfoOfPrintMemory() { return passInfo<PrintMemory>(); }
