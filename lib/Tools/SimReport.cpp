//===- SimReport.cpp - dd-sim's human and JSON reports --------------------===//
//
// Times are printed in milliseconds for people and in integer nanoseconds
// for machines; nothing here computes, it only formats a SimResult.
//
//===----------------------------------------------------------------------===//

#include "SimReport.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/Simulator.h"
#include "daydream/Sim/Symmetry.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace dd;

namespace {

/// Relative error of a prediction, or None when either side is unknown.
llvm::Optional<double> relativeError(const IterationResult &I) {
  if (I.MeasuredNs <= 0 || I.PredictedNs < 0)
    return llvm::None;
  return double(I.PredictedNs - I.MeasuredNs) / double(I.MeasuredNs);
}

/// One time unit for a whole report, chosen from its largest figure, so
/// that columns compare at a glance.
struct TimeUnit {
  const char *Name;
  double NsPer;

  static TimeUnit forSpan(int64_t Ns) {
    if (Ns >= 10'000'000)
      return {"ms", 1e6};
    if (Ns >= 10'000)
      return {"us", 1e3};
    return {"ns", 1};
  }
  std::string operator()(int64_t Ns) const {
    if (Ns < 0)
      return "-";
    if (NsPer == 1)
      return llvm::formatv("{0} ns", Ns).str();
    return llvm::formatv("{0:f3} {1}", double(Ns) / NsPer, Name).str();
  }
};

llvm::json::Value orNull(int64_t V) {
  return V < 0 ? llvm::json::Value(nullptr) : llvm::json::Value(V);
}

/// \p Part of the predicted run \p Whole, as a fraction.
double shareOf(int64_t Part, int64_t Whole) {
  return Whole > 0 ? double(Part) / double(Whole) : 0.0;
}

void printHeadlineText(const SimHeadline &H, int64_t MakespanNs,
                       const TimeUnit &Fmt, llvm::raw_ostream &OS) {
  auto Pct = [&](int64_t Ns) {
    return llvm::formatv("{0:f1}%", 100 * shareOf(Ns, MakespanNs)).str();
  };
  OS << "\ncritical path: " << Fmt(H.CriticalPathNs) << " over "
     << H.CriticalPathTasks << " tasks: GPU " << Pct(H.OnGpuNs) << ", CPU "
     << Pct(H.OnCpuNs) << ", communication " << Pct(H.OnCommNs)
     << ", untraced gaps " << Pct(H.GapNs) << "\n";
  if (!H.GpuComputeNs.empty()) {
    OS << "GPU compute utilization:";
    for (const auto &[Device, Ns] : H.GpuComputeNs)
      OS << " device " << Device << " " << Pct(Ns);
    OS << "\n";
  }
  if (H.CommunicationNs > 0)
    OS << llvm::formatv(
        "communication overlapped with compute: {0:f1}% of "
        "{1}\n",
        100 * shareOf(H.OverlappedCommunicationNs, H.CommunicationNs),
        Fmt(H.CommunicationNs));
}

llvm::json::Object headlineJson(const SimHeadline &H, int64_t MakespanNs) {
  llvm::json::Array Gpus;
  for (const auto &[Device, Ns] : H.GpuComputeNs)
    Gpus.push_back(llvm::json::Object{{"device", Device},
                                      {"share", shareOf(Ns, MakespanNs)}});
  return llvm::json::Object{
      {"critical_path_ns", H.CriticalPathNs},
      {"critical_path_tasks", int64_t(H.CriticalPathTasks)},
      {"critical_path_share",
       llvm::json::Object{{"gpu", shareOf(H.OnGpuNs, MakespanNs)},
                          {"cpu", shareOf(H.OnCpuNs, MakespanNs)},
                          {"communication", shareOf(H.OnCommNs, MakespanNs)},
                          {"gaps", shareOf(H.GapNs, MakespanNs)}}},
      {"gpu_compute_utilization", std::move(Gpus)},
      {"communication_overlap",
       H.CommunicationNs > 0
           ? llvm::json::Value(
                 shareOf(H.OverlappedCommunicationNs, H.CommunicationNs))
           : llvm::json::Value(nullptr)}};
}

/// A job's graph (several ranks): its reports say which rank each
/// iteration and lane belongs to.
bool isJob(const Graph &G) { return G.metadata().Ranks.size() > 1; }

std::string iterationLabel(const IterationResult &I) {
  if (I.Rank < 0)
    return I.Name.str();
  return (I.Name + " (rank " + llvm::Twine(I.Rank) + ")").str();
}

std::string laneLabel(const Graph &G, LaneId L) {
  std::string Label = ("@" + llvm::Twine(L) + " ").str();
  if (isJob(G) && G.lane(L).Rank >= 0)
    Label += ("r" + llvm::Twine(G.lane(L).Rank) + " ").str();
  return Label + G.str(G.lane(L).Name).str();
}

} // namespace

void dd::printSimReportText(const Graph &G, const SimResult &R,
                            const SimReportInfo &Info, llvm::raw_ostream &OS) {
  TimeUnit Fmt = TimeUnit::forSpan(R.MakespanNs);
  const SymmetryReduction *Sym = Info.Symmetry;
  OS << "dd-sim: " << Info.InputName << ": "
     << G.numTasks() + (Sym ? Sym->RemovedTasks : 0) << " tasks, "
     << G.countLiveEdges() + (Sym ? Sym->RemovedEdges : 0) << " edges, "
     << G.numLanes() << " lanes\n";
  if (Sym) {
    OS << "symmetry: " << Sym->Ranks << " ranks in " << Sym->Classes
       << " group(s) of identical ranks";
    if (Sym->StoredCopies)
      OS << " (" << Sym->StoredCopies << " stored as copies)";
    OS << ": simulated one rank of each (" << G.numTasks()
       << " tasks); -symmetry=false simulates all\n";
  }
  OS << "predicted: " << Fmt(R.MakespanNs) << "\n";
  if (!R.Iterations.empty()) {
    OS << "\n"
       << llvm::formatv("{0,-24} {1,14} {2,14} {3,9}\n", "iteration",
                        "measured", "predicted", "error");
    for (const IterationResult &I : R.Iterations) {
      auto Err = relativeError(I);
      // printf's form: formatv has no sign flag ("{0:+f2}" asserts).
      std::string ErrText = "-";
      if (Err) {
        ErrText.clear();
        llvm::raw_string_ostream(ErrText) << llvm::format("%.2f%%", *Err * 100);
      }
      OS << llvm::format("%-24s %14s %14s %9s\n", iterationLabel(I).c_str(),
                         Fmt(I.MeasuredNs).c_str(), Fmt(I.PredictedNs).c_str(),
                         ErrText.c_str());
    }
  }
  OS << "\n"
     << llvm::formatv("{0,-32} {1,-12} {2,8} {3,14} {4,7}\n", "lane", "kind",
                      "tasks", "busy", "busy%");
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    const LaneResult &LR = R.Lanes[L];
    double Share = R.MakespanNs ? 100.0 * LR.BusyNs / R.MakespanNs : 0.0;
    std::string Name = laneLabel(G, L);
    OS << llvm::format("%-32s %-12s %8llu %14s %6.1f%%\n", Name.c_str(),
                       toString(G.lane(L).Kind).str().c_str(),
                       (unsigned long long)LR.NumTasks, Fmt(LR.BusyNs).c_str(),
                       Share);
  }
  if (Info.Headline)
    printHeadlineText(*Info.Headline, R.MakespanNs, Fmt, OS);
}

void dd::printSimReportJson(const Graph &G, const SimResult &R,
                            const SimReportInfo &Info, llvm::raw_ostream &OS) {
  llvm::json::Array Iterations;
  for (const IterationResult &I : R.Iterations) {
    auto Err = relativeError(I);
    llvm::json::Object It{
        {"name", I.Name},
        {"measured_ns", orNull(I.MeasuredNs)},
        {"predicted_ns", orNull(I.PredictedNs)},
        {"error", Err ? llvm::json::Value(*Err) : llvm::json::Value(nullptr)}};
    if (I.Rank >= 0)
      It["rank"] = I.Rank;
    Iterations.push_back(std::move(It));
  }
  llvm::json::Array Lanes;
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    llvm::json::Object Lane{{"name", G.str(G.lane(L).Name)},
                            {"kind", toString(G.lane(L).Kind)},
                            {"tasks", int64_t(R.Lanes[L].NumTasks)},
                            {"busy_ns", R.Lanes[L].BusyNs}};
    if (isJob(G))
      Lane["rank"] = G.lane(L).Rank;
    Lanes.push_back(std::move(Lane));
  }
  const SymmetryReduction *Sym = Info.Symmetry;
  llvm::json::Object Root{
      {"input", Info.InputName},
      {"policy", Info.PolicyName},
      {"tasks", int64_t(G.numTasks() + (Sym ? Sym->RemovedTasks : 0))},
      {"edges", int64_t(G.countLiveEdges() + (Sym ? Sym->RemovedEdges : 0))},
      {"predicted_ns", R.MakespanNs},
      {"origin_ns", R.OriginNs},
      {"iterations", std::move(Iterations)},
      {"lanes", std::move(Lanes)}};
  if (Info.Headline)
    Root["headline"] = headlineJson(*Info.Headline, R.MakespanNs);
  if (Sym) {
    llvm::json::Object S{{"ranks", int64_t(Sym->Ranks)},
                         {"groups", int64_t(Sym->Classes)},
                         {"simulated_tasks", int64_t(G.numTasks())}};
    // As in the text form, said only of a file that stores copies.
    if (Sym->StoredCopies)
      S["stored_copies"] = int64_t(Sym->StoredCopies);
    Root["symmetry"] = std::move(S);
  }
  OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Root))) << "\n";
}
