//===- PrintUtilization.cpp - Print GPU, CPU and link utilization ---------===//
//
// print<utilization>{json=false batch-size=0}
//
// TBD's utilization figures (Utilization.h) for the simulated run, which is
// what a pipeline before this pass predicts, and for the recorded run, which
// is what the trace measured, side by side so a what-if's effect on
// utilization is read off directly. The simulation uses recorded-order
// scheduling on by-priority lanes (dd-sim's default policy). FP32 or
// tensor-pipe utilization would need hardware counters, which the IR does not
// carry, so the pass says so rather than estimate them from peak figures.
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/Simulation.h"
#include "daydream/Analysis/Utilization.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/DeviceName.h"
#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Sim/Simulator.h"
#include "daydream/Support/Units.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace dd;

namespace {

struct PrintUtilizationOptions {
  bool Json = false;
  int64_t BatchSize = 0;
};

void declare(PassOptionParser &P, PrintUtilizationOptions &O) {
  P.add("json", O.Json, "print JSON instead of text");
  P.add("batch-size", O.BatchSize,
        "samples per iteration; > 0 adds throughput in samples per second");
}

llvm::Error validate(const PrintUtilizationOptions &O) {
  if (O.BatchSize < 0)
    return optionError("batch-size must not be negative");
  return llvm::Error::success();
}

constexpr const char *NoCounters =
    "not available: the trace carries no hardware counters (achieved FLOP/s "
    "or pipe activity), and peak figures alone cannot tell them";

llvm::Optional<double> share(int64_t Part, int64_t Whole) {
  if (Whole <= 0)
    return llvm::None;
  return double(Part) / double(Whole);
}

/// "45.0%", or "n/a" where the share is undefined.
std::string percent(llvm::Optional<double> S) {
  if (!S)
    return "n/a";
  return llvm::formatv("{0:f1}%", *S * 100.0).str();
}

llvm::json::Value jsonOr(llvm::Optional<double> V) {
  return V ? llvm::json::Value(*V) : llvm::json::Value(nullptr);
}

class PrintUtilization {
public:
  static constexpr const char *Name = "print<utilization>";
  static constexpr const char *Description =
      "Print GPU compute, stream, CPU-thread and communication-overlap "
      "utilization";
  using OptionsT = PrintUtilizationOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool IsPrinter = true;

  explicit PrintUtilization(PrintUtilizationOptions O) : O(O) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    llvm::Expected<const SimResult *> R = simulatedRun(G, AM);
    if (!R)
      return R.takeError();
    auto [Predicted, Recorded] = predictedAndRecordedUtilization(G, **R);
    llvm::raw_ostream &OS = AM.reportStream();
    if (O.Json) {
      llvm::json::Object Root{{"predicted", json(G, Predicted)},
                              {"recorded", json(G, Recorded)},
                              {"fp32_tensor_utilization", nullptr},
                              {"fp32_tensor_utilization_note", NoCounters}};
      OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Root))) << "\n";
    } else {
      OS << "print<utilization>:\n";
      print(G, "predicted (simulated run)", Predicted, OS);
      print(G, "recorded (trace)", Recorded, OS);
      OS << "  fp32/tensor-pipe utilization: " << NoCounters << "\n";
    }
    return PreservedAnalyses::all();
  }

private:
  void print(const Graph &G, llvm::StringRef Title, const RunUtilization &U,
             llvm::raw_ostream &OS) const {
    int64_t RunNs = U.Run.length();
    // One unit for the report, from the run's length (JSON keeps ns).
    const TimeUnit Fmt = TimeUnit::forSpan(RunNs);
    OS << "  " << Title << ": run " << Fmt(RunNs) << "\n";
    for (const GpuUtilization &Gpu : U.Gpus) {
      OS << "    gpu " << Gpu.Device << " \"" << deviceName(G, Gpu.Device)
         << "\": compute " << Fmt(Gpu.ComputeNs) << ", "
         << percent(share(Gpu.ComputeNs, RunNs)) << "\n";
      for (size_t I = 0; I != U.Iterations.size(); ++I) {
        OS << "      iteration \"" << G.str(G.iterations()[I].Name) << "\": ";
        if (!U.Iterations[I]) {
          OS << "n/a\n";
          continue;
        }
        OS << Fmt(*Gpu.IterationComputeNs[I]) << " of "
           << Fmt(U.Iterations[I]->length()) << ", "
           << percent(
                  share(*Gpu.IterationComputeNs[I], U.Iterations[I]->length()))
           << "\n";
      }
    }
    for (LaneId L = 0; L != G.numLanes(); ++L)
      OS << "    " << toString(G.lane(L).Kind) << " \"" << G.str(G.lane(L).Name)
         << "\": busy " << Fmt(U.LaneBusyNs[L]) << ", "
         << percent(share(U.LaneBusyNs[L], RunNs)) << "\n";
    OS << "    communication " << Fmt(U.CommunicationNs)
       << ", overlapped with compute " << Fmt(U.OverlappedCommunicationNs)
       << ", " << percent(share(U.OverlappedCommunicationNs, U.CommunicationNs))
       << "\n";
    if (llvm::Optional<double> Mean = U.meanIterationNs())
      OS << "    mean iteration " << Fmt(std::llround(*Mean)) << "\n";
    if (llvm::Optional<double> Rate = U.samplesPerSecond(O.BatchSize))
      OS << "    throughput " << llvm::formatv("{0:f1}", *Rate)
         << " samples/s (batch " << O.BatchSize << ")\n";
  }

  llvm::json::Object json(const Graph &G, const RunUtilization &U) const {
    int64_t RunNs = U.Run.length();
    llvm::json::Array Gpus;
    for (const GpuUtilization &Gpu : U.Gpus) {
      llvm::json::Array Iterations;
      for (size_t I = 0; I != U.Iterations.size(); ++I) {
        llvm::json::Object It{{"name", G.str(G.iterations()[I].Name)}};
        if (U.Iterations[I]) {
          It["window_ns"] = U.Iterations[I]->length();
          It["compute_ns"] = *Gpu.IterationComputeNs[I];
          It["compute_share"] = jsonOr(
              share(*Gpu.IterationComputeNs[I], U.Iterations[I]->length()));
        }
        Iterations.push_back(std::move(It));
      }
      Gpus.push_back(llvm::json::Object{
          {"device", Gpu.Device},
          {"name", deviceName(G, Gpu.Device)},
          {"compute_ns", Gpu.ComputeNs},
          {"compute_share", jsonOr(share(Gpu.ComputeNs, RunNs))},
          {"iterations", std::move(Iterations)}});
    }
    llvm::json::Array Lanes;
    for (LaneId L = 0; L != G.numLanes(); ++L)
      Lanes.push_back(llvm::json::Object{
          {"lane", int64_t(L)},
          {"name", G.str(G.lane(L).Name)},
          {"kind", toString(G.lane(L).Kind)},
          {"device", G.lane(L).Device},
          {"busy_ns", U.LaneBusyNs[L]},
          {"busy_share", jsonOr(share(U.LaneBusyNs[L], RunNs))}});
    llvm::json::Object Root{
        {"run_ns", RunNs},
        {"gpus", std::move(Gpus)},
        {"lanes", std::move(Lanes)},
        {"communication_ns", U.CommunicationNs},
        {"overlapped_communication_ns", U.OverlappedCommunicationNs},
        {"overlapped_communication_share",
         jsonOr(share(U.OverlappedCommunicationNs, U.CommunicationNs))},
        {"mean_iteration_ns", jsonOr(U.meanIterationNs())}};
    if (O.BatchSize > 0)
      Root["samples_per_second"] = jsonOr(U.samplesPerSecond(O.BatchSize));
    return Root;
  }

  PrintUtilizationOptions O;
};

} // namespace

PassInfo dd::passInfoOfPrintUtilization() {
  return passInfo<PrintUtilization>();
}
