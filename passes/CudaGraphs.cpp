//===- CudaGraphs.cpp - Capture a region's launches in a CUDA graph -------===//
//
// cuda-graphs{within=REGEX phase=... launch-us=0}
//
// "What if this region were captured as a CUDA graph and replayed?"
// (torch.cuda.graphs, torch.compile's "reduce-overhead" mode). A replay
// launches the region's kernels with one call: the per-kernel launches and
// the CPU work between them (Python, the dispatcher, autograd) are not
// run. The kernels keep their recorded GPU times. Big on launch-bound
// steps, nothing on GPU-bound ones.
//
// A region is a run of tasks on one CPU thread, within one step, inside a
// range matching within= and/or in one of the phases phase= lists. Its
// first task becomes the graph launch (its gap, the untraced time before
// the region, still elapses), which launches every GPU task the region
// launched; the region's other CPU tasks go, with the untraced time
// between them. CUDA cannot capture a synchronizing call: one ends a graph
// and stays as recorded, and the next graph starts after it (a graph
// break, as torch.compile makes one at a .item()); breaks are counted in a
// warning. The launch costs the median cudaGraphLaunch of the
// trace where it has some, else launch-us=, else 2.5 us (see the docs).
//
// Memory: a graph allocates from its private pool, at capture, once. The
// blocks a region made and freed within itself become one pool block per
// graph and device, as large as their most live at once in any of the
// region's runs, allocated at the first replay and never freed; the
// region's other events move to its graph launch.
//
//===----------------------------------------------------------------------===//

#include "Median.h"
#include "Recompute.h"

#include "daydream/Analysis/MemoryBreakdown.h"
#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/LayerChains.h"
#include "daydream/Transforms/Primitives.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

#include <cmath>
#include <map>
#include <tuple>

using namespace dd;
using namespace dd::recompute;

namespace {

/// The CPU cost of cudaGraphLaunch when the trace has none: a few
/// microseconds, and constant in the number of nodes for straight-line
/// graphs since CUDA 12 (NVIDIA technical blog, "Constant Time Launch for
/// Straight-Line CUDA Graphs and Other Performance Enhancements", 2024).
constexpr double DefaultLaunchUs = 2.5;

struct Options {
  std::string Within;
  std::string Phases;
  double LaunchUs = 0;
};

void declare(PassOptionParser &P, Options &O) {
  P.add("within", O.Within,
        "capture runs of CPU tasks inside a range whose name matches this "
        "regex");
  P.add("phase", O.Phases,
        "capture runs of CPU tasks in these phases (comma-separated: "
        "forward, backward, optimizer, other)");
  P.add("launch-us", O.LaunchUs,
        "CPU time of one graph launch in us; 0: the trace's cudaGraphLaunch "
        "median, else 2.5");
}

llvm::Expected<std::vector<Phase>> parsePhases(llvm::StringRef Text) {
  std::vector<Phase> Out;
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Text.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef P : Parts) {
    llvm::Optional<Phase> Ph = parsePhase(P.trim());
    if (!Ph)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "phase=: unknown phase '" + P.str() + "'");
    Out.push_back(*Ph);
  }
  return Out;
}

llvm::Error validate(const Options &O) {
  if (O.Within.empty() && O.Phases.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "within= or phase= is required: the "
                                   "region to capture");
  std::string Why;
  if (!O.Within.empty() && !llvm::Regex(O.Within).isValid(Why))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "within=: " + Why);
  if (auto P = parsePhases(O.Phases); !P)
    return P.takeError();
  if (!(O.LaunchUs >= 0 && O.LaunchUs <= 1e6))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "launch-us= must be in [0, 1e6]");
  return llvm::Error::success();
}

/// One run of a region: its CPU tasks on one thread, in lane order, and
/// which graph it replays (the matching range, or the phase set, the thread
/// and the run's place in its step).
/// (matching range or 0, thread, run of the step).
using GraphKey = std::tuple<uint64_t, LaneId, uint64_t>;

struct Region {
  GraphKey Graph;
  llvm::ArrayRef<TaskId> Cpu; // in RegionTasks
};

class CudaGraphs {
public:
  static constexpr const char *Name = "cuda-graphs";
  static constexpr const char *Description =
      "CUDA graphs: a region's kernel launches and the CPU work between "
      "them become one graph launch";
  using OptionsT = Options;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool IsRankLocal = true;

  explicit CudaGraphs(Options O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    std::vector<Phase> Phases = cantFail(parsePhases(O.Phases));
    StepFinder Steps(G);
    uint64_t Breaks = 0;
    std::vector<std::vector<TaskId>> RegionTasks;
    std::vector<Region> Regions =
        findRegions(G, Steps, Phases, RegionTasks, Breaks);
    const int64_t LaunchNs = graphLaunchNs(G);
    MemoryEventFacts Facts = analyzeMemoryEvents(G);
    MemoryIndex Memory(G, Facts);

    std::vector<LaneRun> Runs;
    uint64_t Captured = 0, Empty = 0, Kernels = 0, Removed = 0;
    std::map<std::pair<GraphKey, int32_t>, Pool> Pools;
    // Which tasks launch GPU work, and how much: bits and counts, not
    // lists, since only the regions' totals matter.
    llvm::BitVector Launches(G.numTaskSlots());
    for (const Edge &E : G.edgeSlots())
      if (E.Kind == EdgeKind::Launch && G.isLive(E))
        Launches.set(E.Src);
    llvm::BitVector InGraph(G.numTaskSlots());
    for (const Region &R : Regions) {
      if (llvm::none_of(R.Cpu, [&](TaskId T) { return Launches.test(T); })) {
        ++Empty;
        continue;
      }
      // The first task becomes the graph launch and launches the GPU work
      // of the others, which go, with the Python between them.
      const TaskId Launch = R.Cpu.front();
      Task &L = G.task(Launch);
      L.Name = G.intern("cudaGraphLaunch");
      L.Kind = TaskKind::Runtime;
      L.Flags |= TF_Synthetic;
      Runs.push_back({R.Cpu, LaunchNs});
      for (TaskId T : R.Cpu)
        InGraph.set(T);
      poolRegionMemory(G, R, Launch, Memory, Pools);
      ++Captured;
      Removed += R.Cpu.size() - 1;
    }
    for (const Edge &E : G.edgeSlots())
      Kernels +=
          E.Kind == EdgeKind::Launch && InGraph.test(E.Src) && G.isLive(E);
    collapseRuns(G, Runs);
    for (auto &[Key, P] : Pools) {
      if (P.Bytes <= 0)
        continue;
      MemoryEvent E;
      E.TimeNs = G.task(P.FirstLaunch).StartNs;
      E.Bytes = P.Bytes;
      E.Device = Key.second;
      E.Lane = G.task(P.FirstLaunch).Lane;
      E.Address = Memory.freshAddress();
      E.Task = P.FirstLaunch;
      E.Category = uint8_t(MemoryCategory::Workspace);
      E.Flags = MEF_Modelled;
      G.addMemoryEvent(E);
    }

    AM.count("regions captured", Captured);
    AM.count("GPU tasks in graphs", Kernels);
    AM.count("CPU tasks removed", Removed);
    if (Breaks)
      AM.warning(llvm::formatv("{0} synchronizing calls in the region cannot "
                               "be captured: each ends a graph and stays as "
                               "recorded",
                               Breaks)
                     .str());
    if (!Captured) {
      if (Regions.empty())
        AM.warning("no CPU task is in the region: nothing to capture");
      else if (Empty == Regions.size())
        AM.warning("the region launches no GPU work: nothing to capture");
      return PreservedAnalyses::all();
    }
    return PreservedAnalyses::none();
  }

private:
  /// A graph's private pool on one device: its size, and the launch of
  /// its first replay.
  struct Pool {
    int64_t Bytes = 0;
    TaskId FirstLaunch = NoId;
  };

  /// The runs of the region, lane by lane, their tasks viewed in \p Tasks
  /// (one array per lane); \p Breaks counts the synchronizing calls that
  /// end one.
  std::vector<Region> findRegions(const Graph &G, const StepFinder &Steps,
                                  llvm::ArrayRef<Phase> Phases,
                                  std::vector<std::vector<TaskId>> &Tasks,
                                  uint64_t &Breaks) const {
    std::vector<LayerId> Match;
    if (!O.Within.empty())
      Match = nearestMatchingLayers(G, O.Within);
    // Each CPU thread's walk: where its open run is, and its runs so far.
    struct Walk {
      bool Cpu = false, Open = false;
      uint64_t OpenKey = 0;
      StepKey OpenStep{INT32_MIN, INT64_MIN};
      // Which run of this thread and step a region is: the k-th run of a
      // step replays the same graph as the k-th run of every other step.
      uint64_t Ordinal = 0;
      StepFinder::Span Span{{}, 0, 0}; // empty: the first task searches
      std::vector<std::pair<GraphKey, size_t>> Starts;
    };
    std::vector<Walk> Walks(G.numLanes());
    for (LaneId L = 0; L != G.numLanes(); ++L)
      Walks[L].Cpu = G.lane(L).Kind == LaneKind::CpuThread;
    Tasks.assign(G.numLanes(), {});
    G.forEachInLaneOrder([&](TaskId T) {
      const Task &Tk = G.task(T);
      Walk &W = Walks[Tk.Lane];
      if (!W.Cpu)
        return;
      bool In = Phases.empty() || llvm::is_contained(Phases, Tk.Phase);
      uint64_t Key = 0;
      if (!O.Within.empty()) {
        LayerId M = Tk.Layer == NoId ? NoId : Match[Tk.Layer];
        In = In && M != NoId;
        Key = M;
      }
      if (In && Tk.Kind == TaskKind::Sync) {
        ++Breaks;
        In = false;
      }
      if (!In) {
        W.Open = false;
        return;
      }
      if (!W.Span.contains(Tk.StartNs))
        W.Span = Steps.spanOf(G, T);
      const StepKey Step = W.Span.Key;
      std::vector<TaskId> &Mine = Tasks[Tk.Lane];
      if (!W.Open || Key != W.OpenKey || Step != W.OpenStep) {
        W.Ordinal = Step != W.OpenStep ? 0 : W.Ordinal + 1;
        W.Starts.push_back({GraphKey{Key, Tk.Lane, W.Ordinal}, Mine.size()});
        W.Open = true;
        W.OpenKey = Key;
        W.OpenStep = Step;
      }
      Mine.push_back(T);
    });
    std::vector<Region> Out;
    for (LaneId L = 0; L != G.numLanes(); ++L) {
      llvm::ArrayRef<TaskId> Mine = Tasks[L];
      const auto &Starts = Walks[L].Starts;
      for (size_t I = 0; I != Starts.size(); ++I) {
        size_t End =
            I + 1 != Starts.size() ? Starts[I + 1].second : Mine.size();
        Out.push_back(
            Region{Starts[I].first,
                   Mine.slice(Starts[I].second, End - Starts[I].second)});
      }
    }
    return Out;
  }

  int64_t graphLaunchNs(const Graph &G) const {
    if (O.LaunchUs > 0)
      return int64_t(std::llround(O.LaunchUs * 1000));
    std::vector<int64_t> Recorded;
    for (TaskId T : G.liveTasks()) {
      llvm::StringRef N = G.str(G.task(T).Name);
      if (G.task(T).Kind == TaskKind::Runtime &&
          !(G.task(T).Flags & TF_Synthetic) &&
          (N == "cudaGraphLaunch" || N == "cuGraphLaunch" ||
           N == "hipGraphLaunch"))
        Recorded.push_back(G.task(T).DurationNs);
    }
    if (!Recorded.empty())
      return median(Recorded);
    return int64_t(DefaultLaunchUs * 1000);
  }

  /// The region's own blocks join its graph's pool; its other events move
  /// with its graph launch.
  static void
  poolRegionMemory(Graph &G, const Region &R, TaskId Launch,
                   MemoryIndex &Memory,
                   std::map<std::pair<GraphKey, int32_t>, Pool> &Pools) {
    const MemoryEventFacts &Facts = Memory.facts();
    if (Facts.Owner.empty())
      return; // no memory events
    llvm::DenseMap<TaskId, bool> InRegion;
    for (TaskId T : R.Cpu)
      InRegion[T] = true;
    std::vector<size_t> Owned;
    for (TaskId T : R.Cpu)
      Owned.insert(Owned.end(), Memory.ownedBy(T).begin(),
                   Memory.ownedBy(T).end());
    std::sort(Owned.begin(), Owned.end(), [&](size_t A, size_t B) {
      return G.memoryEvents()[A].TimeNs < G.memoryEvents()[B].TimeNs;
    });
    llvm::MutableArrayRef<MemoryEvent> Events = G.memoryEventsMut();
    std::map<int32_t, std::pair<int64_t, int64_t>> Live; // (now, most)
    for (size_t I : Owned) {
      MemoryEvent &E = Events[I];
      if (E.Flags & MEF_Replaced)
        continue;
      const size_t P = Facts.Partner[I];
      const bool Internal = P != NoMemoryEvent && Facts.Owner[P] != NoId &&
                            InRegion.count(Facts.Owner[P]);
      if (!Internal) {
        E.Task = Launch;
        continue;
      }
      E.Flags |= MEF_Replaced;
      auto &[Now, Most] = Live[E.Device];
      Now += E.Bytes > 0 ? E.Bytes : -Events[P].Bytes;
      Most = std::max(Most, Now);
    }
    for (auto &[Device, L] : Live) {
      Pool &P = Pools[{R.Graph, Device}];
      P.Bytes = std::max(P.Bytes, L.second);
      if (P.FirstLaunch == NoId)
        P.FirstLaunch = Launch;
    }
  }

  Options O;
};

} // namespace

PassInfo dd::passInfoOfCudaGraphs() { return passInfo<CudaGraphs>(); }
