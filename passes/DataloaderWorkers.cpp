//===- DataloaderWorkers.cpp - The DataLoader on worker processes ---------===//
//
// dataloader-workers{workers=N prefetch=2 slowdown=1 batch-cost-us=B
//                    load-ms=L recorded-workers=M layer=RE}
//
// "What if the DataLoader used N worker processes?" PyTorch's
// _MultiProcessingDataLoaderIter hands each batch's indices to its workers
// round robin, keeps up to prefetch batches per worker in flight (it puts
// the next indices in a worker's queue each time the main thread takes a
// batch), and the main thread only takes ready batches off a queue. So each
// batch the trace's main thread loaded itself (its DataLoader __next__, with
// everything inside it) becomes:
//   - a task on worker lane (batch mod N): the recorded load time times
//     slowdown, after the worker's previous batch and after the main
//     thread took the batch prefetch x N before it (the moment its indices
//     were handed out);
//   - on the main thread, "__next__" waiting for that task (a sync edge)
//     and then the cost of taking the batch (queue get, unpickling);
//   - where the load pinned memory (aten::pin_memory inside it), the pinning
//     on a pin-memory thread of the main process, after the worker.
// The batches the trace's first steps take were handed out before the
// trace began; they start in the steady state of the loop (see
// steadyStateLag()). A trace recorded with workers (its main thread shows
// _MultiProcessingDataLoaderIter.__next__) does not record what a batch
// costs a worker; the pass derives it from the recorded worker count and
// step period, or takes load-ms=. docs/passes/dataloader-workers.md gives
// the model, its sources and its limits.
//
//===----------------------------------------------------------------------===//

#include "Median.h"

#include "daydream/IR/Graph.h"
#include "daydream/IR/TaskFieldBounds.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/LayerChains.h"
#include "daydream/Transforms/Primitives.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <cmath>

using namespace dd;

namespace {

/// What the main thread pays to take a ready batch when the trace cannot
/// say: a pipe read and unpickling of the batch's structure (tens of us)
/// and, per tensor, receiving its shared-memory file descriptor from the
/// worker and mapping it (PyTorch's default file_descriptor sharing
/// strategy, about 100 us), for a batch of two tensors (inputs, labels).
constexpr double DefaultBatchCostUs = 250;
/// A recorded __next__ that took this much longer than the quickest one
/// waited for its batch.
constexpr int64_t WaitedNs = 50000;

struct DataloaderWorkersOptions {
  int64_t Workers = -1;
  int64_t Prefetch = 2;
  double Slowdown = 1.0;
  double BatchCostUs = -1;
  double LoadMs = -1;
  int64_t RecordedWorkers = -1;
  std::string LayerRegex = "^enumerate\\(DataLoader\\)#";
};

void declare(PassOptionParser &P, DataloaderWorkersOptions &O) {
  P.add("workers", O.Workers, "worker processes to predict (0: none)");
  P.add("prefetch", O.Prefetch,
        "batches in flight per worker (PyTorch's prefetch_factor)");
  P.add("slowdown", O.Slowdown,
        "a worker takes this times the recorded load time of a batch "
        "(contention for cores and memory bandwidth; >= 1 usually)");
  P.add("batch-cost-us", O.BatchCostUs,
        "main-thread cost of taking a ready batch, in us (default: the "
        "quickest recorded take on a trace with workers, else 250)");
  P.add("load-ms", O.LoadMs,
        "a batch's load time in a worker, in ms (default: from the trace)");
  P.add("recorded-workers", O.RecordedWorkers,
        "the workers a trace recorded with workers ran with");
  P.add("layer", O.LayerRegex,
        "regex naming the DataLoader's op (each one a batch)");
}

llvm::Error validate(const DataloaderWorkersOptions &O) {
  if (O.Workers < 0)
    return optionError("give workers=N, the worker processes to predict");
  if (O.Workers > 1024)
    return optionError("workers must be at most 1024");
  if (O.Prefetch < 1)
    return optionError("prefetch must be at least 1");
  if (llvm::Error E = checkDurationFactor("slowdown", O.Slowdown, true))
    return E;
  if (O.RecordedWorkers == 0 || O.RecordedWorkers < -1)
    return optionError("recorded-workers must be at least 1");
  std::string Msg;
  if (!llvm::Regex(O.LayerRegex).isValid(Msg))
    return optionError("invalid regex '" + O.LayerRegex + "': " + Msg);
  return llvm::Error::success();
}

/// One batch the trace's main thread fetched: its DataLoader op's tasks.
struct Fetch {
  std::vector<TaskId> Tasks; ///< on the consumer lane, in lane order
  int64_t StartNs = 0;       ///< recorded start
  int64_t GapNs = 0;         ///< untraced time before it
  int64_t SpanNs = 0;        ///< its tasks' durations and inner gaps
  int64_t PinNs = 0;         ///< of which inside aten::pin_memory
};

/// A thread that fetched batches, and how.
struct Consumer {
  LaneId Lane = NoId;
  LayerId Layer = NoId; ///< the DataLoader op's layer
  bool WithWorkers = false;
  std::vector<Fetch> Fetches;
};

double mean(llvm::ArrayRef<int64_t> V) {
  double S = 0;
  for (int64_t X : V)
    S += double(X);
  return V.empty() ? 0 : S / double(V.size());
}

/// Starts of consecutive fetches, apart: the loop's recorded period.
std::vector<int64_t> periods(const Consumer &C) {
  std::vector<int64_t> P;
  for (size_t I = 1; I < C.Fetches.size(); ++I)
    P.push_back(C.Fetches[I].StartNs - C.Fetches[I - 1].StartNs);
  return P;
}

/// Every CPU lane's runs of consecutive tasks inside a DataLoader op, and
/// the GPU work inside one (\p Gpu).
std::vector<Consumer> findConsumers(Graph &G, llvm::StringRef Regex,
                                    std::vector<TaskId> &Gpu) {
  std::vector<LayerId> Loader = nearestMatchingLayers(G, Regex);
  std::vector<LayerId> Pin = nearestMatchingLayers(G, "^aten::_?pin_memory$");
  auto LoaderOf = [&](TaskId T) {
    LayerId L = G.task(T).Layer;
    return L == NoId ? NoId : Loader[L];
  };
  std::vector<Consumer> Out;
  for (TaskId T : G.liveTasks())
    if (isGpuWork(G.task(T).Kind) && LoaderOf(T) != NoId)
      Gpu.push_back(T);
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    if (G.lane(L).Kind != LaneKind::CpuThread)
      continue;
    Consumer C;
    C.Lane = L;
    for (TaskId T = G.laneHead(L); T != NoId;) {
      if (LoaderOf(T) == NoId) {
        T = G.nextOnLane(T);
        continue;
      }
      if (C.Layer == NoId) {
        C.Layer = LoaderOf(T);
        C.WithWorkers = G.str(G.layer(C.Layer).Name)
                            .contains("_MultiProcessingDataLoaderIter");
      }
      Fetch F;
      F.StartNs = G.task(T).StartNs;
      F.GapNs = G.task(T).GapNs;
      for (; T != NoId && LoaderOf(T) != NoId; T = G.nextOnLane(T)) {
        const Task &Tk = G.task(T);
        int64_t Ns = Tk.DurationNs + (F.Tasks.empty() ? 0 : Tk.GapNs);
        F.SpanNs += Ns;
        if (Pin[Tk.Layer] != NoId)
          F.PinNs += Ns;
        F.Tasks.push_back(T);
      }
      C.Fetches.push_back(std::move(F));
    }
    if (!C.Fetches.empty())
      Out.push_back(std::move(C));
  }
  return Out;
}

/// The model's figures for one consumer.
struct Plan {
  std::vector<int64_t> LoadNs; ///< a batch's time in a worker (slowed)
  std::vector<int64_t> PinNs;  ///< its pinning, on the pin-memory thread
  int64_t TakeNs = 0;          ///< the main thread's cost of a batch
  /// In the loop's steady state, how long the main thread waits for each
  /// batch (0 where the workers keep up), and how long a step takes it
  /// besides (its recorded period less the loading, plus the take).
  int64_t LagNs = 0, StepNs = 0;
  /// What the load and the take rest on, for the remark.
  std::string LoadSource, TakeSource;
  /// The load is only a bound: the recorded workers kept up, so the trace
  /// does not say how long they took.
  bool Bound = false;
};

/// The loop once it has run a while: N workers deliver a batch every
/// Load / N, the main thread asks for one every Step (its recorded period,
/// less the loading it no longer does, plus the take), so it waits
/// Load / N - Step for each where that is positive. With one fetch there is
/// no period: the workers are taken to keep up.
void steadyState(const Consumer &C, Plan &P, int64_t Workers) {
  std::vector<int64_t> Per = periods(C);
  if (Per.empty())
    return;
  std::vector<int64_t> Spans;
  for (const Fetch &F : C.Fetches)
    Spans.push_back(F.SpanNs);
  double Step = std::max(0.0, mean(Per) - mean(Spans) + double(P.TakeNs));
  double Deliver = mean(P.LoadNs) / double(Workers);
  P.StepNs = roundNs(Step);
  P.LagNs = Deliver > Step ? roundNs(Deliver - Step) : 0;
}

class DataloaderWorkers {
public:
  static constexpr const char *Name = "dataloader-workers";
  static constexpr const char *Description =
      "The DataLoader on N worker processes: batches loaded beside the main "
      "thread";
  using OptionsT = DataloaderWorkersOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;

  explicit DataloaderWorkers(DataloaderWorkersOptions O) : O(std::move(O)) {}
  static constexpr bool AddsTasks = true; // the workers' batches

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    std::vector<TaskId> Gpu;
    std::vector<Consumer> Consumers = findConsumers(G, O.LayerRegex, Gpu);
    if (Consumers.empty()) {
      AM.warning("no CPU task inside a DataLoader op (a layer matching '" +
                 O.LayerRegex + "'); nothing was changed");
      return PreservedAnalyses::all();
    }
    int64_t T0 = INT64_MAX;
    for (TaskId T : G.liveTasks())
      T0 = std::min(T0, G.task(T).StartNs);
    std::vector<TaskId> Removed = Gpu;
    bool Changed = false;
    for (const Consumer &C : Consumers) {
      if (O.Workers == 0 && !C.WithWorkers) {
        AM.warning("workers=0: the DataLoader of '" +
                   G.str(G.lane(C.Lane).Name) +
                   "' already loads in the main process; nothing was "
                   "changed there");
        continue;
      }
      auto P = plan(G, C);
      if (!P)
        return P.takeError();
      if (O.Workers == 0)
        loadInMainProcess(G, C, *P);
      else
        moveToWorkers(G, C, *P, T0);
      for (const Fetch &F : C.Fetches)
        for (TaskId T : F.Tasks) {
          G.task(T).GapNs = 0; // the fetch's gap went to its replacement
          Removed.push_back(T);
        }
      remark(G, AM, C, *P);
      if (P->Bound)
        AM.warning(llvm::formatv(
            "'{0}': the recorded {1} workers kept up with the main thread, "
            "so the trace does not say how long a batch takes them: at most "
            "{2:f3} ms (recorded-workers x the step period), which this "
            "prediction takes, so its steps are upper bounds; give load-ms= "
            "if you know the time",
            G.str(G.lane(C.Lane).Name), O.RecordedWorkers,
            mean(P->LoadNs) / O.Slowdown / 1e6));
      Changed = true;
    }
    if (!Changed)
      return PreservedAnalyses::all();
    removeTasks(G, Removed);
    return PreservedAnalyses::none();
  }

private:
  llvm::Expected<Plan> plan(const Graph &G, const Consumer &C) const {
    Plan P;
    size_t B = C.Fetches.size();
    if (!C.WithWorkers) {
      for (const Fetch &F : C.Fetches) {
        P.LoadNs.push_back(roundNs(double(F.SpanNs - F.PinNs) * O.Slowdown));
        P.PinNs.push_back(F.PinNs);
      }
      P.TakeNs = roundNs(
          (O.BatchCostUs >= 0 ? O.BatchCostUs : DefaultBatchCostUs) * 1000);
      P.LoadSource = "the recorded load";
      P.TakeSource = O.BatchCostUs >= 0
                         ? "given"
                         : "assumed: queue get and unpickling, 2 tensors";
    } else {
      // A recorded take is the wait for the batch and the take itself: the
      // quickest bounds the take, but where every step waited, it is mostly
      // wait, so the take is the default where that is less.
      int64_t Quickest = INT64_MAX;
      for (const Fetch &F : C.Fetches)
        Quickest = std::min(Quickest, F.SpanNs);
      int64_t Default = std::llround(DefaultBatchCostUs * 1000);
      P.TakeNs = O.BatchCostUs >= 0 ? roundNs(O.BatchCostUs * 1000)
                                    : std::min(Quickest, Default);
      P.TakeSource = O.BatchCostUs >= 0 ? "given"
                     : Quickest < Default
                         ? "the quickest recorded take"
                         : "assumed: queue get and unpickling, 2 tensors";
      int64_t Load = 0;
      if (O.LoadMs >= 0) {
        Load = roundNs(O.LoadMs * 1e6);
        P.LoadSource = "given";
      } else {
        if (O.RecordedWorkers < 0)
          return llvm::createStringError(
              llvm::inconvertibleErrorCode(),
              "'%s' was recorded with worker processes "
              "(_MultiProcessingDataLoaderIter), which the trace does not "
              "count: give recorded-workers=M (or load-ms=)",
              G.str(G.lane(C.Lane).Name).str().c_str());
        std::vector<int64_t> Per = periods(C);
        if (Per.empty())
          return llvm::createStringError(
              llvm::inconvertibleErrorCode(),
              "'%s' fetched one batch: no period to tell a worker's load "
              "time from; give load-ms=",
              G.str(G.lane(C.Lane).Name).str().c_str());
        // M workers deliver a batch every Load / M where the main thread
        // waits for them; where it never waits, that is only a bound.
        size_t Waited = 0;
        for (const Fetch &F : C.Fetches)
          Waited += F.SpanNs > P.TakeNs + WaitedNs;
        Load = O.RecordedWorkers * median(Per);
        P.LoadSource = "recorded-workers x the recorded step period";
        P.Bound = 2 * Waited <= B;
      }
      P.LoadNs.assign(B, roundNs(double(Load) * O.Slowdown));
      P.PinNs.assign(B, 0);
    }
    if (O.Workers > 0)
      steadyState(C, P, O.Workers);
    return std::move(P);
  }

  /// A lane of the main thread's process (or of a worker's), beside \p C's.
  LaneId addLane(Graph &G, const Consumer &C, const llvm::Twine &Name) const {
    Lane L;
    L.Name = G.intern(Name.str());
    L.Kind = LaneKind::CpuThread;
    L.Rank = G.lane(C.Lane).Rank;
    L.NativeId = -1;
    return G.addLane(L);
  }

  Task madeTask(const Graph &G, const Fetch &F, StrId Name, LayerId Layer,
                int64_t DurationNs) const {
    Task T;
    T.StartNs = F.StartNs; // where the step it serves began: its iteration
    T.DurationNs = std::max<int64_t>(0, DurationNs);
    T.Name = Name;
    T.Layer = Layer;
    T.Kind = TaskKind::CpuOp;
    T.Phase = G.task(F.Tasks.front()).Phase;
    T.Flags = TF_Synthetic;
    return T;
  }

  /// The consumer's op as PyTorch records it with workers.
  LayerId takeLayer(Graph &G, const Consumer &C, llvm::StringRef Name) const {
    if (G.str(G.layer(C.Layer).Name) == Name)
      return C.Layer;
    return G.addLayer(Layer{G.intern(Name), G.layer(C.Layer).Parent});
  }

  void moveToWorkers(Graph &G, const Consumer &C, const Plan &P,
                     int64_t T0) const {
    size_t B = C.Fetches.size(), N = size_t(O.Workers);
    std::string Thread = G.str(G.lane(C.Lane).Name).str();
    std::vector<LaneId> Workers;
    for (size_t W = 0; W != std::min(N, B); ++W)
      Workers.push_back(addLane(
          G, C, "DataLoader worker " + llvm::Twine(W) + " of " + Thread));
    bool Pins = llvm::any_of(P.PinNs, [](int64_t Ns) { return Ns > 0; });
    LaneId PinLane =
        Pins ? addLane(G, C, "DataLoader pin-memory thread of " + Thread)
             : NoId;
    StrId LoadName = G.intern("DataLoader worker: a batch");
    StrId PinName = G.intern("aten::pin_memory");
    llvm::StringRef Next =
        "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";
    LayerId Take = takeLayer(G, C, Next);
    StrId TakeName = G.intern(Next);
    int64_t First = C.Fetches.front().StartNs;
    std::vector<TaskId> Taken(B, NoId);
    for (size_t I = 0; I != B; ++I) {
      const Fetch &F = C.Fetches[I];
      Task Load = madeTask(G, F, LoadName, C.Layer, P.LoadNs[I]);
      Load.Lane = Workers[I % N];
      // The batches each worker was making when the trace began end as in
      // the loop's steady state: the main thread asks for batch I at the
      // first fetch plus I steps of Step + Lag, and gets it Lag later, the
      // pinning (if any) following the worker. What of them would have run
      // before the trace is left out.
      int64_t Ready = First + P.LagNs + int64_t(I) * (P.StepNs + P.LagNs);
      int64_t Loaded = std::max(T0, Ready - P.PinNs[I]);
      if (I < Workers.size()) {
        int64_t Begin = std::max(T0, Loaded - Load.DurationNs);
        Load.DurationNs = Loaded - Begin;
        Load.GapNs = Begin - T0;
      }
      TaskId Made = G.addTask(Load);
      size_t Ahead = size_t(O.Prefetch) * N;
      if (I >= Ahead)
        G.addEdge(Taken[I - Ahead], Made, EdgeKind::Data);
      if (PinLane != NoId) {
        Task Pin = madeTask(G, F, PinName, C.Layer, P.PinNs[I]);
        Pin.Lane = PinLane;
        if (I == 0) { // the pin-memory lane's first task: after the load
          Pin.DurationNs = std::min(Pin.DurationNs, Ready - T0);
          Pin.GapNs = std::max<int64_t>(0, Ready - Pin.DurationNs - Loaded);
        }
        TaskId Pinned = G.addTask(Pin);
        G.addEdge(Made, Pinned, EdgeKind::Data);
        Made = Pinned;
      }
      Task Wait = madeTask(G, F, TakeName, Take, 0);
      Wait.GapNs = F.GapNs;
      TaskId Waiting = G.insertTaskBefore(F.Tasks.front(), Wait);
      G.addEdge(Made, Waiting, EdgeKind::Sync);
      Task Get = madeTask(G, F, TakeName, Take, P.TakeNs);
      Taken[I] = G.insertTaskAfter(Waiting, Get);
    }
  }

  /// workers=0 on a trace recorded with workers: the main thread loads.
  void loadInMainProcess(Graph &G, const Consumer &C, const Plan &P) const {
    llvm::StringRef Next =
        "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
    LayerId Layer = takeLayer(G, C, Next);
    StrId Name = G.intern(Next);
    for (size_t I = 0; I != C.Fetches.size(); ++I) {
      const Fetch &F = C.Fetches[I];
      Task Load = madeTask(G, F, Name, Layer, P.LoadNs[I]);
      Load.GapNs = F.GapNs;
      G.insertTaskBefore(F.Tasks.front(), Load);
    }
  }

  void remark(const Graph &G, AnalysisManager &AM, const Consumer &C,
              const Plan &P) const {
    llvm::raw_ostream &OS = AM.reportStream();
    double LoadMs = mean(P.LoadNs) / 1e6;
    OS << "dataloader-workers: '" << G.str(G.lane(C.Lane).Name)
       << "': " << C.Fetches.size() << " batches";
    if (O.Workers == 0) {
      OS << llvm::format(" loaded in the main process, %.3f ms each (%s)\n",
                         LoadMs, P.LoadSource.c_str());
      return;
    }
    OS << " from " << O.Workers << " worker processes (prefetch " << O.Prefetch
       << "): "
       << llvm::format("%.3f ms a batch in a worker (%s, x slowdown %.2f); ",
                       LoadMs, P.LoadSource.c_str(), O.Slowdown)
       << llvm::format("the main thread takes a batch in %.3f ms (%s); ",
                       double(P.TakeNs) / 1e6, P.TakeSource.c_str());
    if (P.LagNs > 0)
      OS << llvm::format("the workers cannot keep up: the main thread waits "
                         "about %.3f ms a batch\n",
                         double(P.LagNs) / 1e6);
    else
      OS << "the workers keep up\n";
  }

  DataloaderWorkersOptions O;
};

} // namespace

PassInfo dd::passInfoOfDataloaderWorkers() {
  return passInfo<DataloaderWorkers>();
}
