//===- Bandwidth.cpp - Change the bandwidth of communication --------------===//
//
// bandwidth{factor=F gbps=X latency-us=L kind=... lane=RE ...}
//
// "What if the interconnect were F times faster, or ran at X GB/s?" A
// message's time follows the alpha-beta model, t = alpha + bytes / beta: a
// fixed latency alpha that bandwidth does not buy back, and a part that
// shrinks with bandwidth. With gbps= and a recorded size the new time is
// computed outright; otherwise (or without gbps=) only the part of the
// recorded time above the latency is divided by the factor. Only
// communication (collectives and NCCL/RCCL kernels) changes.
//
//===----------------------------------------------------------------------===//

#include "daydream/Comm/NetworkModel.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/TaskFieldBounds.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/Primitives.h"
#include "daydream/Transforms/TaskSelector.h"

#include <algorithm>
#include <cmath>

using namespace dd;

namespace {

struct BandwidthOptions {
  double Factor = 1.0;
  /// 0: not given; sized tasks fall back to the factor too.
  double Gbps = 0.0;
  double LatencyUs = 0.0;
  TaskSelector Select;
};

void declare(PassOptionParser &P, BandwidthOptions &O) {
  P.add("factor", O.Factor,
        "new bandwidth = factor x old; the time above the latency is "
        "divided by it (> 0)");
  P.add("gbps", O.Gbps,
        "new bandwidth in GB/s (bytes / time); tasks with a bytes attribute "
        "take latency + bytes / bandwidth (0: not used)");
  P.add("latency-us", O.LatencyUs,
        "per-task latency alpha in microseconds, which bandwidth does not "
        "change");
  O.Select.declareOptions(P);
}

llvm::Error validate(const BandwidthOptions &O) {
  if (llvm::Error E = checkDurationFactor("factor", O.Factor, true))
    return E;
  if (O.Gbps < 0)
    return optionError("gbps must not be negative (0: not used)");
  if (O.LatencyUs < 0)
    return optionError("latency-us must not be negative");
  return O.Select.validate();
}

/// The recorded time with its bandwidth part sped up by \p Factor; a task
/// shorter than the latency is all latency.
int64_t scaledAboveLatencyNs(int64_t DurationNs, double Factor,
                             double LatencyNs) {
  double Fixed = std::min(double(DurationNs), LatencyNs);
  return roundNs(Fixed + (double(DurationNs) - Fixed) / Factor);
}

class Bandwidth {
public:
  static constexpr const char *Name = "bandwidth";
  static constexpr const char *Description =
      "Change the bandwidth (and latency) of communication tasks";
  using OptionsT = BandwidthOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;

  explicit Bandwidth(BandwidthOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    double LatencyNs = O.LatencyUs * 1000.0;
    KernelClassifier Classifier(G);
    size_t Selected = 0;
    for (TaskId T : O.Select.select(G)) {
      if (Classifier.classOf(T) != KernelClass::Communication)
        continue;
      ++Selected;
      const TaskAttrs *A = G.attrs(T);
      bool Sized = O.Gbps > 0 && A && A->Bytes > 0;
      setDurations(G, T,
                   Sized
                       ? roundNs(comm::alphaBetaNs(
                             double(A->Bytes), comm::Link{O.Gbps, O.LatencyUs}))
                       : scaledAboveLatencyNs(G.task(T).DurationNs, O.Factor,
                                              LatencyNs));
    }
    AM.count("communication tasks selected", Selected);
    if (Selected == 0) {
      AM.warning("the selection '" + O.Select.describe() +
                 "' matches no communication task; nothing was changed");
      return PreservedAnalyses::all();
    }
    return PreservedAnalyses::none().preserveSet<StructureAnalyses>();
  }

private:
  BandwidthOptions O;
};

} // namespace

PassInfo dd::passInfoOfBandwidth() { return passInfo<Bandwidth>(); }
