//===- SimReport.cpp - dd-sim's human and JSON reports --------------------===//
//
// Times are printed in milliseconds for people and in integer nanoseconds
// for machines; nothing here computes, it only formats a SimResult.
//
//===----------------------------------------------------------------------===//

#include "SimReport.h"
#include "ToolSupport.h"
#include "daydream/Analysis/MemoryBreakdown.h"
#include "daydream/IR/DeviceName.h"
#include "daydream/IR/Graph.h"
#include "daydream/Sim/Simulator.h"
#include "daydream/Sim/SteadyState.h"
#include "daydream/Sim/Symmetry.h"
#include "daydream/Support/Units.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace dd;

namespace {

/// (predicted - recorded) / recorded, or None when either side is
/// unknown: a replay's error, or a prediction's change.
llvm::Optional<double> relativeChange(const IterationResult &I) {
  if (I.MeasuredNs <= 0 || I.PredictedNs < 0)
    return llvm::None;
  return double(I.PredictedNs - I.MeasuredNs) / double(I.MeasuredNs);
}

/// The words a report uses for the recorded side and the difference: a
/// graph a pipeline changed is compared with its recording as a change; an
/// unchanged one is a replay, whose difference is the simulator's error.
struct Sides {
  const char *Recorded, *Difference;
  static Sides of(const Graph &G) {
    return G.metadata().isPrediction() ? Sides{"baseline", "change"}
                                       : Sides{"measured", "error"};
  }
};

/// A change "+1.23%" (signed: which way the what-if moves the step), an
/// error "1.23%" or "-1.23%"; printf's form, as formatv has no sign flag
/// ("{0:+f2}" asserts).
std::string percent(double Percent, bool Signed) {
  std::string Text;
  llvm::raw_string_ostream(Text)
      << llvm::format(Signed ? "%+.2f%%" : "%.2f%%", Percent);
  return Text;
}

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

constexpr const char *NoMemoryNote =
    "the graph has no memory events (record with "
    "torch.profiler.profile(profile_memory=True) to have them)";

void printMemoryText(const Graph &G, const SimResult &R,
                     const SimReportInfo &Info, const TimeUnit &Fmt,
                     llvm::raw_ostream &OS) {
  if (!Info.Memory) {
    OS << "\nmemory: " << NoMemoryNote << "\n";
    return;
  }
  OS << "\nmemory (replayed in simulated time; TBD's breakdown at each "
        "device's peak):\n";
  for (const DeviceMemory &D : Info.Memory->Devices) {
    if (D.Timeline.empty())
      continue;
    const MemorySample &Peak = D.Timeline[D.Peak];
    // One unit a device, from its peak: the host's few KiB and a GPU's GiB
    // each read plainly.
    const SizeUnit Size = SizeUnit::forSize(Peak.total());
    OS << "  device " << D.Device << " \"" << memoryDeviceName(G, D)
       << "\": peak " << Size(Peak.total()) << " at "
       << Fmt(Peak.TimeNs - R.OriginNs);
    if (D.PeakIteration >= 0)
      OS << " in \"" << R.Iterations[D.PeakIteration].Name << "\"";
    int64_t Recorded = D.RecordedPeakBytes;
    if (Recorded > 0)
      OS << " (recorded " << Size(Recorded) << ", "
         << percent(100.0 * double(Peak.total() - Recorded) / double(Recorded),
                    /*Signed=*/true)
         << ")";
    OS << ":";
    const char *Sep = " ";
    for (unsigned C = 0; C != NumMemoryCategories; ++C) {
      OS << Sep << toString(MemoryCategory(C)) << " " << Size(Peak.Live[C]);
      Sep = ", ";
    }
    OS << "\n";
    if (D.BeforeTraceBytes > 0)
      OS << "    before the trace: " << Size(D.BeforeTraceBytes)
         << " (estimated from the allocator's total; not in the peak)\n";
  }
}

llvm::json::Array memoryJson(const SimResult &R, const SimReportInfo &Info) {
  llvm::json::Array Devices;
  for (const DeviceMemory &D : Info.Memory->Devices) {
    if (D.Timeline.empty())
      continue;
    const MemorySample &Peak = D.Timeline[D.Peak];
    llvm::json::Object Breakdown;
    for (unsigned C = 0; C != NumMemoryCategories; ++C)
      Breakdown[toString(MemoryCategory(C))] = Peak.Live[C];
    llvm::json::Object Entry{
        {"device", D.Device},
        {"peak_bytes", Peak.total()},
        {"at_ns", Peak.TimeNs - R.OriginNs},
        {"iteration",
         D.PeakIteration >= 0
             ? llvm::json::Value(R.Iterations[D.PeakIteration].Name)
             : llvm::json::Value(nullptr)},
        {"breakdown", std::move(Breakdown)},
        {"recorded_peak_bytes", D.RecordedPeakBytes},
        {"before_trace_bytes", orNull(D.BeforeTraceBytes)}};
    if (D.Rank >= 0)
      Entry["rank"] = D.Rank;
    Devices.push_back(std::move(Entry));
  }
  return Devices;
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

/// The tasks and edges of the job \p G stands for: its own, those the
/// symmetry reduction left out, or the whole job's where \p G is a share.
static JobCounts jobCounts(const Graph &G, const SimReportInfo &Info) {
  if (Info.Job)
    return *Info.Job;
  const SymmetryReduction *Sym = Info.Symmetry;
  return JobCounts{G.numTasks() + (Sym ? Sym->RemovedTasks : 0),
                   G.countLiveEdges() + (Sym ? Sym->RemovedEdges : 0)};
}

void dd::printSimReportText(const Graph &G, const SimResult &R,
                            const SimReportInfo &Info, llvm::raw_ostream &OS) {
  TimeUnit Fmt = TimeUnit::forSpan(R.MakespanNs);
  const SymmetryReduction *Sym = Info.Symmetry;
  const JobCounts Counts = jobCounts(G, Info);
  OS << "dd-sim: " << Info.InputName << ": " << Counts.Tasks << " tasks, "
     << Counts.Edges << " edges, " << G.numLanes() << " lanes\n";
  if (Sym) {
    OS << "symmetry: " << Sym->Ranks << " ranks in " << Sym->Classes
       << " group(s) of identical ranks";
    if (Sym->StoredCopies)
      OS << " (" << Sym->StoredCopies << " stored as copies)";
    OS << ": simulated one rank of each (" << G.numTasks()
       << " tasks); -symmetry=false simulates all\n";
  }
  for (const PipelineRun &P : G.metadata().Pipelines)
    OS << "what-if: " << P.Pipeline << " (" << P.Tool << " on " << P.Input
       << ")\n";
  const Sides Words = Sides::of(G);
  SteadyState Steady = steadyState(R.Iterations);
  if (Steady.known()) {
    OS << "steady state (median of " << Steady.Steps << " complete step"
       << (Steady.Steps == 1 ? "" : "s") << "): " << Words.Recorded << " "
       << Fmt(Steady.BaselineNs) << ", predicted " << Fmt(Steady.PredictedNs)
       << ", " << Words.Difference << " "
       << percent(Steady.changePercent(), G.metadata().isPrediction());
    if (G.metadata().isPrediction())
      OS << llvm::format(" (speedup %.3fx)", Steady.speedup());
    OS << "\n";
  }
  OS << "whole trace, first task to last: predicted " << Fmt(R.MakespanNs)
     << "\n";
  if (!R.Iterations.empty()) {
    OS << "\n"
       << llvm::formatv("{0,-24} {1,14} {2,14} {3,9}\n", "iteration",
                        Words.Recorded, "predicted", Words.Difference);
    for (const IterationResult &I : R.Iterations) {
      auto Change = relativeChange(I);
      std::string ChangeText =
          Change ? percent(*Change * 100, G.metadata().isPrediction()) : "-";
      OS << llvm::format("%-24s %14s %14s %9s\n", iterationLabel(I).c_str(),
                         Fmt(I.MeasuredNs).c_str(), Fmt(I.PredictedNs).c_str(),
                         ChangeText.c_str());
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
  printMemoryText(G, R, Info, Fmt, OS);
}

void dd::printSimReportJson(const Graph &G, const SimResult &R,
                            const SimReportInfo &Info, llvm::raw_ostream &OS) {
  const bool Prediction = G.metadata().isPrediction();
  auto OrNullDouble = [](llvm::Optional<double> V) {
    return V ? llvm::json::Value(*V) : llvm::json::Value(nullptr);
  };
  llvm::json::Array Iterations;
  for (const IterationResult &I : R.Iterations) {
    auto Change = relativeChange(I);
    llvm::json::Object It{{"name", I.Name},
                          {"predicted_ns", orNull(I.PredictedNs)}};
    if (Prediction) {
      It["baseline_ns"] = orNull(I.MeasuredNs);
      It["change_pct"] = OrNullDouble(Change ? *Change * 100 : Change);
    } else {
      It["measured_ns"] = orNull(I.MeasuredNs);
      It["error"] = OrNullDouble(Change);
    }
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
  llvm::json::Object Root{{"input", Info.InputName},
                          {"policy", Info.PolicyName},
                          {"tasks", int64_t(jobCounts(G, Info).Tasks)},
                          {"edges", int64_t(jobCounts(G, Info).Edges)},
                          {"predicted_ns", R.MakespanNs},
                          {"origin_ns", R.OriginNs},
                          {"iterations", std::move(Iterations)},
                          {"lanes", std::move(Lanes)}};
  Root["prediction"] = Prediction;
  llvm::json::Array Pipelines;
  for (const PipelineRun &P : G.metadata().Pipelines)
    Pipelines.push_back(llvm::json::Object{
        {"pipeline", P.Pipeline}, {"tool", P.Tool}, {"input", P.Input}});
  Root["pipelines"] = std::move(Pipelines);
  SteadyState Steady = steadyState(R.Iterations);
  llvm::json::Object SteadyJson{{"rule", SteadyStateRule},
                                {"steps", int64_t(Steady.Steps)},
                                {"predicted_ns", orNull(Steady.PredictedNs)}};
  SteadyJson[Prediction ? "baseline_ns" : "measured_ns"] =
      orNull(Steady.BaselineNs);
  if (Prediction)
    SteadyJson["change_pct"] = OrNullDouble(
        Steady.known() ? llvm::Optional<double>(Steady.changePercent())
                       : llvm::None);
  else
    SteadyJson["error"] = OrNullDouble(
        Steady.known() ? llvm::Optional<double>(Steady.relativeChange())
                       : llvm::None);
  Root["steady_state"] = std::move(SteadyJson);
  if (Prediction)
    Root["speedup"] = OrNullDouble(
        Steady.known() ? llvm::Optional<double>(Steady.speedup()) : llvm::None);
  if (Info.Headline)
    Root["headline"] = headlineJson(*Info.Headline, R.MakespanNs);
  if (Info.Memory)
    Root["memory"] = memoryJson(R, Info);
  else {
    Root["memory"] = llvm::json::Array();
    Root["memory_note"] = NoMemoryNote;
  }
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

namespace {

std::string csvNs(int64_t Ns) { return Ns < 0 ? "" : std::to_string(Ns); }

} // namespace

void dd::printSimReportCsv(const Graph &G, const SimResult &R,
                           llvm::raw_ostream &OS) {
  const bool Prediction = G.metadata().isPrediction();
  OS << "iteration,rank," << (Prediction ? "baseline_ns" : "measured_ns")
     << ",predicted_ns," << (Prediction ? "change_pct" : "error_pct") << "\n";
  auto Row = [&](llvm::StringRef Name, int32_t Rank, int64_t Recorded,
                 int64_t Predicted) {
    OS << csvField(Name) << ',' << (Rank >= 0 ? std::to_string(Rank) : "")
       << ',' << csvNs(Recorded) << ',' << csvNs(Predicted) << ',';
    if (Recorded > 0 && Predicted >= 0)
      OS << llvm::format("%.4f", 100.0 * double(Predicted - Recorded) /
                                     double(Recorded));
    OS << "\n";
  };
  for (const IterationResult &I : R.Iterations)
    Row(I.Name, I.Rank, I.MeasuredNs, I.PredictedNs);
  SteadyState Steady = steadyState(R.Iterations);
  Row("steady state", -1, Steady.BaselineNs, Steady.PredictedNs);
}
