//===- PredictedTrace.cpp - A simulated run as a PyTorch profiler trace ---===//
//
// One TraceModel a rank, built in one pass over the tasks in slot order;
// the writer and the importer need nothing sorted.
//
//===----------------------------------------------------------------------===//

#include "PredictedTrace.h"
#include "ToolSupport.h"
#include "daydream/IR/Graph.h"
#include "daydream/Import/TraceModel.h"
#include "daydream/Sim/Simulator.h"
#include "daydream/Support/OutputFile.h"
#include "daydream/Synth/KinetoWriter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <memory>

using namespace dd;
using namespace dd::import;

namespace {

/// The Kineto "pid" of rank \p Rank's CPU threads: apart from the GPUs'
/// (the device index), as a real trace's process id is.
int64_t cpuPid(int32_t Rank) { return 1'000'000 + std::max(Rank, 0); }

constexpr llvm::StringLiteral AfterWait = " (after wait)";

/// The model of one rank, filled task by task.
class RankModel {
public:
  RankModel(const Graph &G, int32_t Rank) : G(G), Rank(Rank) {
    M.Meta.Producer = G.metadata().Producer;
    M.Meta.SourceFormat = "kineto";
    for (const RankInfo &R : G.metadata().Ranks)
      if (R.Rank == Rank)
        M.Meta.Ranks.push_back(R);
  }

  void addTask(TaskId T, int64_t Start, int64_t End);
  void addStep(const Iteration &It, const IterationResult &R, LaneId Lane);
  TraceModel take();

  uint64_t Written = 0;

private:
  StrId name(StrId GraphName) {
    auto [It, New] = Names.try_emplace(GraphName, 0);
    if (New)
      It->second = M.Strings.intern(G.str(GraphName));
    return It->second;
  }
  uint32_t thread(LaneId L) {
    const Lane &Ln = G.lane(L);
    uint32_t T = M.thread(cpuPid(Rank), Ln.NativeId);
    M.Threads[T].Name = name(Ln.Name);
    return T;
  }

  const Graph &G;
  int32_t Rank;
  TraceModel M;
  llvm::DenseMap<StrId, StrId> Names;
  /// Each lane's last call, to join a synchronize's rest to it.
  llvm::DenseMap<LaneId, size_t> LastCall;
};

void RankModel::addTask(TaskId T, int64_t Start, int64_t End) {
  const Task &Tk = G.task(T);
  const Lane &Ln = G.lane(Tk.Lane);
  switch (Tk.Kind) {
  case TaskKind::CpuOp: {
    CpuRange R;
    R.StartNs = Start;
    R.EndNs = End;
    R.Thread = thread(Tk.Lane);
    R.Name = name(Tk.Name);
    M.Ranges.push_back(R);
    break;
  }
  case TaskKind::Runtime:
  case TaskKind::Sync: {
    llvm::StringRef Name = G.str(Tk.Name);
    // The importer split a synchronize where its wait ended
    // (SplitSyncWaits.cpp); the trace records one call.
    if (Name.endswith(AfterWait)) {
      auto It = LastCall.find(Tk.Lane);
      if (It != LastCall.end() && M.Strings.get(M.Calls[It->second].Name) ==
                                      Name.drop_back(AfterWait.size())) {
        M.Calls[It->second].EndNs = End;
        ++Written;
        return;
      }
    }
    ApiCall C;
    C.StartNs = Start;
    C.EndNs = End;
    C.Thread = thread(Tk.Lane);
    C.Name = name(Tk.Name);
    C.Correlation = Tk.Correlation;
    C.Kind = classifyApi(Name);
    LastCall[Tk.Lane] = M.Calls.size();
    M.Calls.push_back(C);
    break;
  }
  case TaskKind::Kernel:
  case TaskKind::Memcpy:
  case TaskKind::Memset:
  case TaskKind::Collective: {
    GpuActivity A; // on a GPU: writePredictedTrace() checked
    A.StartNs = Start;
    A.EndNs = End;
    A.Stream = M.stream(Ln.Device, Ln.NativeId);
    M.Streams[A.Stream].Name = name(Ln.Name);
    A.Name = name(Tk.Name);
    A.Correlation = Tk.Correlation;
    A.Kind = Tk.Kind;
    if (const TaskAttrs *Attrs = G.attrs(T)) {
      A.HasAttrs = true;
      A.Attrs = *Attrs;
    }
    M.Activities.push_back(A);
    break;
  }
  case TaskKind::Marker:
    return; // counted by the caller
  }
  ++Written;
}

void RankModel::addStep(const Iteration &It, const IterationResult &R,
                        LaneId Lane) {
  CpuRange Step;
  Step.StartNs = R.PredictedStartNs;
  Step.EndNs = R.PredictedStartNs + R.PredictedNs;
  Step.Thread = thread(Lane);
  Step.Name = name(It.Name);
  Step.Kind = RangeKind::Step;
  M.Ranges.push_back(Step);
}

TraceModel RankModel::take() {
  // The devices this rank's streams are on, as the graph describes them.
  llvm::DenseSet<int32_t> Used;
  for (const StreamInfo &S : M.Streams)
    Used.insert(S.Device);
  for (const Device &D : G.metadata().Devices)
    if (Used.count(D.Index))
      M.Meta.Devices.push_back(D);
  return std::move(M);
}

} // namespace

llvm::Expected<PredictedTraceSummary>
dd::writePredictedTrace(const Graph &G, const SimResult &R,
                        llvm::StringRef Path) {
  // Ranks in order; a graph of one rank (or of none) is one file.
  std::map<int32_t, std::unique_ptr<RankModel>> Ranks;
  auto ModelOf = [&](int32_t Rank) -> RankModel & {
    std::unique_ptr<RankModel> &M = Ranks[Rank];
    if (!M)
      M = std::make_unique<RankModel>(G, Rank);
    return *M;
  };
  PredictedTraceSummary Summary;
  // The thread each step was recorded on: its marker's.
  llvm::StringMap<LaneId> StepLane;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T) {
    if (!G.isLive(T))
      continue;
    const Task &Tk = G.task(T);
    int32_t Rank = G.lane(Tk.Lane).Rank;
    if (Tk.Kind == TaskKind::Marker) {
      ++Summary.Markers;
      StepLane.try_emplace((G.str(Tk.Name) + "/" + llvm::Twine(Rank)).str(),
                           Tk.Lane);
      continue;
    }
    if (isGpuWork(Tk.Kind) && G.lane(Tk.Lane).Device < 0) {
      // A job's collective matched across its ranks stands on a channel of
      // no rank; each rank's own kernel for it is written.
      ++(Rank < 0 && G.metadata().Ranks.size() > 1 ? Summary.JobCollectives
                                                   : Summary.NoDevice);
      continue;
    }
    ModelOf(Rank).addTask(T, R.Start[T], R.End[T]);
  }
  for (size_t I = 0; I != G.iterations().size(); ++I) {
    const Iteration &It = G.iterations()[I];
    const IterationResult &IR = R.Iterations[I];
    if (IR.PredictedNs < 0 || It.Name == NoId)
      continue;
    // A job-wide step (rank -1) goes to every rank's trace.
    for (auto &[Rank, Model] : Ranks) {
      if (It.Rank >= 0 && It.Rank != Rank)
        continue;
      auto Found =
          StepLane.find((G.str(It.Name) + "/" + llvm::Twine(Rank)).str());
      LaneId Lane = NoId;
      if (Found != StepLane.end())
        Lane = Found->second;
      else
        for (LaneId L = 0; L != G.numLanes() && Lane == NoId; ++L)
          if (G.lane(L).Kind == LaneKind::CpuThread && G.lane(L).Rank == Rank)
            Lane = L;
      if (Lane != NoId)
        Model->addStep(It, IR, Lane);
    }
  }

  if (Ranks.empty())
    ModelOf(-1); // an empty run is still a trace
  // Every rank's file is written before any is committed: a failure (a
  // full disk at rank 5) leaves none of them, and old files as they were.
  std::vector<std::unique_ptr<OutputFile>> Files;
  for (auto &[Rank, Model] : Ranks) {
    auto File = OutputFile::create(rankPath(Path, Rank, Ranks.size()));
    if (!File)
      return File.takeError();
    Summary.Written += Model->Written;
    TraceModel M = Model->take();
    Model.reset();
    if (llvm::Error E = synth::writeKinetoFile(M, **File, "predicted"))
      return std::move(E);
    Summary.Files.push_back((*File)->path().str());
    Files.push_back(std::move(*File));
  }
  for (std::unique_ptr<OutputFile> &File : Files)
    if (llvm::Error E = File->commit())
      return std::move(E);
  return Summary;
}
