//===- DdpInsert.cpp - Data-parallel training from a single-GPU trace -----===//
//
// ddp-insert{params-mb=M bucket-mb=25 first-bucket-mb=1 gpus=8 gbps=G
//            latency-us=5 split=duration}
//
// "What if this model trained data-parallel on N GPUs?" (the Daydream
// paper's distributed-training what-if). Each training step's gradients are
// grouped into buckets in the order backward produces them, as PyTorch DDP
// does; each bucket's all-reduce goes on one communication lane as soon as
// the last kernel that produces its gradients ends, and the step's optimizer
// waits for all of them. The all-reduce time is the ring model's. The trace
// does not record parameter sizes, so the user gives the total and the pass
// spreads it over the backward GEMM/conv kernels (see DataParallel.h and
// docs/passes/ddp-insert.md for exactly how and its limits).
//
//===----------------------------------------------------------------------===//

#include "DataParallel.h"

#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"

using namespace dd;
using namespace dd::dataparallel;

namespace {

void declare(PassOptionParser &P, Options &O) { declareOptions(P, O); }

llvm::Error validate(const Options &O) { return validateOptions(O); }

class DdpInsert {
public:
  static constexpr const char *Name = "ddp-insert";
  static constexpr const char *Description =
      "Data-parallel training: bucketed gradient all-reduces on a "
      "communication lane";
  using OptionsT = Options;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;

  explicit DdpInsert(Options O) : O(std::move(O)) {}
  static constexpr bool AddsTasks = true; // the gradients' all-reduces

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &) {
    // One GPU has nobody to reduce with: the trace is already the answer.
    if (O.Gpus == 1)
      return PreservedAnalyses::all();
    auto StepsOr = findTrainingSteps(G);
    if (!StepsOr)
      return StepsOr.takeError();
    std::vector<TrainingStep> Steps = std::move(*StepsOr);
    auto TotalOr = parameterBytes(G, O);
    if (!TotalOr)
      return TotalOr.takeError();
    Total = *TotalOr;
    double Gbps = ringGbps(G, O);
    LaneId Lane = NoId;
    AllReduceNames Names;
    for (const TrainingStep &S : Steps) {
      if (S.Backward.empty())
        continue;
      if (Lane == NoId)
        Lane = commLane(G, "nccl allreduce", LaneOrder::InOrder,
                        S.Backward.front());
      insertStep(G, S, Lane, Gbps, Names);
    }
    return PreservedAnalyses::none();
  }

private:
  void insertStep(Graph &G, const TrainingStep &S, LaneId Lane, double Gbps,
                  AllReduceNames &Names) {
    std::vector<uint64_t> Bytes =
        splitBytes(G, S.Backward, Total, O.Split == "duration");
    std::vector<Bucket> Buckets =
        makeBuckets(Bytes, mbToBytes(O.FirstBucketMb), mbToBytes(O.BucketMb));
    llvm::ArrayRef<TaskId> Consumers = barrierConsumers(S);
    for (size_t B = 0; B != Buckets.size(); ++B)
      insertAllReduce(
          G, Lane, S.Backward[Buckets[B].Last], Buckets[B].Bytes,
          Names.get(G, B, 0, 0, Buckets[B].Bytes),
          ringAllReduceNs(Buckets[B].Bytes, O.Gpus, Gbps, O.LatencyUs),
          Consumers);
  }

  Options O;
  uint64_t Total = 0;
};

} // namespace

PassInfo dd::passInfoOfDdpInsert() { return passInfo<DdpInsert>(); }
