//===- PrintCriticalPath.cpp - Print what the simulated run waited on -----===//
//
// print<critical-path>{json=false top=10 tasks=false policy=recorded-order}
//
// Simulates the graph as the pipeline left it and reports the critical path
// of that run (Sim/CriticalPath.h): its length, which is the makespan, and
// where that time goes by task kind, phase and lane kind, with gaps (time
// the trace did not see) on their own line so every breakdown adds up to the
// length; the GPU work, the CPU ops and the layers that hold most of it; and
// how many tasks have how much slack. A path that begins with a long gap is
// flagged: that time is before any traced work of its lane, and no pass on
// traced work shortens it. A printer pass: it changes nothing, preserves
// every analysis and writes to the report stream in a fixed order.
//
//===----------------------------------------------------------------------===//

#include "daydream/Analysis/Simulation.h"
#include "daydream/Analysis/TopologicalOrder.h"
#include "daydream/IR/CanonicalOrder.h"
#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Sim/CriticalPath.h"
#include "daydream/Sim/SchedulingPolicy.h"
#include "daydream/Sim/Simulator.h"
#include "daydream/Support/Units.h"

#include "llvm/Support/Compiler.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace dd;

namespace {

struct PrintCriticalPathOptions {
  bool Json = false;
  int64_t Top = 10;
  bool Tasks = false;
  std::string Policy = "recorded-order";
};

void declare(PassOptionParser &P, PrintCriticalPathOptions &O) {
  P.add("json", O.Json, "print JSON instead of text");
  P.add("top", O.Top,
        "how many kernel names, op names and layers to list (>= 0)");
  P.add("tasks", O.Tasks, "also list every task on the path");
  P.add("policy", O.Policy, "scheduling policy for by-priority lanes");
}

llvm::Error validate(const PrintCriticalPathOptions &O) {
  if (O.Top < 0)
    return optionError("top must be >= 0");
  auto Policy = createSchedulingPolicy(O.Policy);
  return Policy ? llvm::Error::success() : Policy.takeError();
}

/// Time on the path of one kernel name or layer.
struct Group {
  llvm::StringRef Name;
  int64_t Ns = 0;
  uint64_t Count = 0;
};

/// Slack histogram: zero, then below 1 us, 10 us, ..., 1 s, then the rest.
constexpr int64_t SlackBounds[] = {1,       1000,     10000,     100000,
                                   1000000, 10000000, 100000000, 1000000000};
constexpr const char *SlackLabels[] = {"zero",   "<1us", "<10us",
                                       "<100us", "<1ms", "<10ms",
                                       "<100ms", "<1s",  ">=1s"};
constexpr size_t NumSlackBuckets = std::size(SlackLabels);

/// A first gap of this share of the path is flagged: a twentieth of the run
/// spent before the lane's first traced task bounds what any what-if on
/// traced work can change, and is most often a trace that began before its
/// workload did (profiler start-up, a thread that waited for work).
constexpr double LongFirstGapShare = 0.05;

struct Report {
  const SimResult *Sim = nullptr;
  /// Kept only to list it (tasks=true): the figures below need no path.
  CriticalPath Path;
  CriticalPathBreakdown Time;
  uint64_t NumSteps = 0;
  uint64_t Blocked = 0;
  /// The path's first task (the last one visited) and its gap.
  TaskId First = NoId;
  int64_t FirstGapNs = 0;
  std::vector<Group> Kernels, Ops, Layers;
  uint64_t SlackCounts[NumSlackBuckets] = {};
};

/// Time on the path grouped by name (a StrId), filled step by step from
/// the last step to the first. Indexed by StrId rather than hashed: a path
/// can hold millions of steps and the string table is small next to it.
class GroupTable {
public:
  explicit GroupTable(const Graph &G) : G(G), Index(G.strings().size(), NoId) {}

  /// Inlined: it runs twice a step, and most of it is the call otherwise.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void add(StrId Name, int64_t Ns) {
    uint32_t I = Index[Name];
    if (LLVM_UNLIKELY(I == NoId))
      I = insert(Name);
    Entry &E = Entries[I];
    E.Gr.Ns += Ns;
    ++E.Gr.Count;
    E.LastSeen = ++Added;
  }

  /// The \p Top groups with the most time, ties by name.
  std::vector<Group> top(size_t Top) {
    // Two strings of a file may be equal, so ties on name can remain, and
    // the sort then keeps whatever order it was given: the order in which
    // the groups first appear going forward, the last seen going back.
    llvm::sort(Entries, [](const Entry &A, const Entry &B) {
      return A.LastSeen > B.LastSeen;
    });
    std::vector<Group> Groups;
    Groups.reserve(Entries.size());
    for (const Entry &E : Entries)
      Groups.push_back(E.Gr);
    llvm::sort(Groups, [](const Group &A, const Group &B) {
      return std::make_pair(-A.Ns, A.Name) < std::make_pair(-B.Ns, B.Name);
    });
    if (Groups.size() > Top)
      Groups.resize(Top);
    return Groups;
  }

private:
  struct Entry {
    Group Gr;
    /// When the group was last added to; its last step going back is its
    /// first going forward.
    uint64_t LastSeen = 0;
  };

  LLVM_ATTRIBUTE_NOINLINE uint32_t insert(StrId Name) {
    Index[Name] = Entries.size();
    Entries.push_back(Entry{Group{G.str(Name)}});
    return Index[Name];
  }

  const Graph &G;
  std::vector<uint32_t> Index;
  std::vector<Entry> Entries;
  uint64_t Added = 0;
};

/// Every figure of the report but the listing, added up as
/// visitCriticalPath() hands over the steps and the slack: the path can
/// hold half of the graph's tasks, and each step reads its task record
/// while the sweep has it at hand.
class Summarizer final : public CriticalPathVisitor {
public:
  Summarizer(const Graph &G, Report &Rep)
      : G(G), Rep(Rep), Kernels(G), Ops(G), Layers(G),
        AllLive(G.numTasks() == G.numTaskSlots()) {
    for (unsigned K = 0; K != NumTaskKinds; ++K)
      GpuKind[K] = isGpuWork(TaskKind(K));
    for (const Lane &L : G.lanes())
      LaneKinds.push_back(L.Kind);
  }

  void step(const CriticalStep &S) override {
    const Task &Tk = G.task(S.Task);
    addStep(Rep.Time, S, Tk, LaneKinds[Tk.Lane]);
    ++Rep.NumSteps;
    Rep.Blocked += S.Blocked;
    // A copy or collective can hold up a step as much as a kernel can. A
    // GPU task's gap is the GPU's scheduling latency, not the kernel's.
    if (GpuKind[unsigned(Tk.Kind)] && Tk.Name != NoId)
      Kernels.add(Tk.Name, S.WorkNs);
    // A cpu-op task is an op's own time; its gap is untraced time outside
    // every op, which is the gap line's, not the op's.
    if (Tk.Kind == TaskKind::CpuOp && Tk.Name != NoId)
      Ops.add(Tk.Name, S.WorkNs);
    // Steps come from the last to the first.
    Rep.First = S.Task;
    Rep.FirstGapNs = S.GapNs;
    // By name: importers make one layer per distinct chain of enclosing
    // operators, so one operator's time is spread over many layers. A CPU
    // task's gap is untraced work inside the operators that enclose it.
    if (Tk.Layer != NoId && G.layer(Tk.Layer).Name != NoId)
      Layers.add(G.layer(Tk.Layer).Name, S.WorkNs + S.GapNs);
  }

  void slack(TaskId First, llvm::ArrayRef<int64_t> SlackNs) override {
    // Counted per bound, how many tasks reach it: independent sums, where
    // bumping each task's bucket would wait on the last bump of the same
    // bucket, which is most often the one just made.
    constexpr size_t NumBounds = std::size(SlackBounds);
    uint64_t Reach[NumBounds] = {};
    uint64_t Live = 0;
    for (size_t I = 0; I != SlackNs.size(); ++I) {
      if (!AllLive && !G.isLive(First + I))
        continue;
      ++Live;
      for (size_t B = 0; B != NumBounds; ++B)
        Reach[B] += SlackNs[I] >= SlackBounds[B];
    }
    // Bounds ascend, so a task in bucket B reaches bounds 0 to B - 1 only.
    Rep.SlackCounts[0] += Live - Reach[0];
    for (size_t B = 1; B != NumBounds; ++B)
      Rep.SlackCounts[B] += Reach[B - 1] - Reach[B];
    Rep.SlackCounts[NumBounds] += Reach[NumBounds - 1];
  }

  void finish(size_t Top) {
    Rep.Kernels = Kernels.top(Top);
    Rep.Ops = Ops.top(Top);
    Rep.Layers = Layers.top(Top);
  }

private:
  const Graph &G;
  Report &Rep;
  GroupTable Kernels, Ops, Layers;
  bool GpuKind[NumTaskKinds];
  std::vector<LaneKind> LaneKinds;
  const bool AllLive;
};

std::string percentOf(int64_t Part, int64_t Whole) {
  double Share = Whole ? 100.0 * double(Part) / double(Whole) : 0.0;
  return llvm::formatv("{0:f1}%", Share).str();
}

bool startsWithLongGap(const Report &Rep) {
  return Rep.First != NoId && Rep.Sim->MakespanNs > 0 &&
         double(Rep.FirstGapNs) >=
             LongFirstGapShare * double(Rep.Sim->MakespanNs);
}

/// "@3 'stream 7' rank 1": where a task ran.
std::string laneOf(const Graph &G, TaskId T) {
  const Lane &L = G.lane(G.task(T).Lane);
  std::string S = llvm::formatv("@{0} '{1}'", G.task(T).Lane, G.str(L.Name));
  if (L.Rank >= 0)
    S += llvm::formatv(" rank {0}", L.Rank).str();
  return S;
}

class PrintCriticalPath {
public:
  static constexpr const char *Name = "print<critical-path>";
  static constexpr const char *Description =
      "Print the simulated run's critical path, its breakdown and per-task "
      "slack";
  using OptionsT = PrintCriticalPathOptions;
  static constexpr auto Declare = &declare;
  static constexpr auto Validate = &validate;
  static constexpr bool IsPrinter = true;

  explicit PrintCriticalPath(PrintCriticalPathOptions O) : O(std::move(O)) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    auto Policy = createSchedulingPolicy(O.Policy);
    if (!Policy)
      return Policy.takeError();
    llvm::Expected<const CanonicalOrder *> OrderOr = orderForSimulation(G, AM);
    if (!OrderOr)
      return OrderOr.takeError();
    const CanonicalOrder *Order = *OrderOr;
    llvm::Expected<SimResult> Sim = run(G, Order, Policy->get(), AM);
    if (!Sim)
      return Sim.takeError();

    Report Rep;
    Rep.Sim = &*Sim;
    Summarizer Sum(G, Rep);
    if (O.Tasks) {
      // The listing needs the path, and the end times visiting would free.
      llvm::Expected<CriticalPath> Path = findCriticalPath(G, *Sim, Order);
      if (!Path)
        return Path.takeError();
      Rep.Path = std::move(*Path);
      for (const CriticalStep &S : llvm::reverse(Rep.Path.Steps))
        Sum.step(S);
      Sum.slack(0, Rep.Path.SlackNs);
    } else if (llvm::Error E = visitCriticalPath(G, *Sim, Order, Sum)) {
      return std::move(E);
    }
    Sum.finish(O.Top);
    if (O.Json)
      printJson(G, Rep, AM.reportStream());
    else
      printText(G, Rep, AM.reportStream());
    return PreservedAnalyses::all();
  }

private:
  /// The simulated run: a copy of the cached one (SimulationAnalysis.h)
  /// where an earlier printer left one for the default policy (visiting
  /// the path consumes the end times), else one of its own, which reads
  /// the path and the makespan, not the lanes' and iterations' results
  /// (they cost the simulation's sweep a tenth), and so is not cached.
  llvm::Expected<SimResult> run(const Graph &G, const CanonicalOrder *Order,
                                SchedulingPolicy *Policy,
                                AnalysisManager &AM) const {
    if (O.Policy == builtinPolicyNames().front())
      if (const auto *Cached = AM.getCachedResult<SimulationAnalysis>())
        if (Cached->Error.empty())
          return Cached->Run;
    SimOptions SO;
    SO.Order = Order ? &Order->Order : nullptr;
    SO.Policy = Policy;
    SO.LaneAndIterationResults = false;
    return simulate(G, SO);
  }

  void printText(const Graph &G, const Report &Rep,
                 llvm::raw_ostream &OS) const {
    const int64_t Len = Rep.Sim->MakespanNs;
    // One unit for the report, from the path's length (JSON keeps ns).
    const TimeUnit Fmt = TimeUnit::forSpan(Len);
    auto Line = [&](llvm::StringRef Name, int64_t Ns) {
      OS << "    " << Name << " " << Fmt(Ns) << " " << percentOf(Ns, Len)
         << "\n";
    };
    auto Breakdown = [&](llvm::StringRef Title, auto EnumTag,
                         const int64_t *ByKey, size_t N, bool GapLine) {
      using EnumT = decltype(EnumTag);
      OS << "  " << Title << ":\n";
      for (size_t I = 0; I != N; ++I)
        if (ByKey[I])
          Line(toString(EnumT(I)), ByKey[I]);
      if (GapLine)
        Line("gap", Rep.Time.GapNs);
    };
    auto Groups = [&](llvm::StringRef Title, const std::vector<Group> &Gs) {
      OS << "  " << Title << ":\n";
      for (const Group &Gr : Gs)
        OS << "    " << Fmt(Gr.Ns) << " " << percentOf(Gr.Ns, Len) << " "
           << Gr.Count << "x " << Gr.Name << "\n";
    };

    OS << "print<critical-path>:\n";
    OS << "  length " << Fmt(Len) << "\n";
    OS << "  tasks " << Rep.NumSteps << " of " << G.numTasks() << " ("
       << Rep.Blocked << " blocked on a sync)\n";
    if (startsWithLongGap(Rep))
      OS << "  note: the path starts with " << Fmt(Rep.FirstGapNs) << " ("
         << percentOf(Rep.FirstGapNs, Len) << ") of untraced time before '"
         << G.str(G.task(Rep.First).Name) << "' on " << laneOf(G, Rep.First)
         << ": time before the first traced work of that lane, which no "
            "pass on traced work shortens\n";
    Breakdown("by task kind", TaskKind(), Rep.Time.ByTaskKind, NumTaskKinds,
              true);
    Breakdown("by phase", Phase(), Rep.Time.ByPhase, NumPhases, false);
    Breakdown("by lane kind", LaneKind(), Rep.Time.ByLaneKind, NumLaneKinds,
              true);
    Groups("top kernels", Rep.Kernels);
    Groups("top ops", Rep.Ops);
    Groups("top layers", Rep.Layers);
    OS << "  slack:\n";
    for (size_t I = 0; I != NumSlackBuckets; ++I)
      if (Rep.SlackCounts[I])
        OS << "    " << SlackLabels[I] << " " << Rep.SlackCounts[I] << "\n";
    if (!O.Tasks)
      return;
    OS << "  path:\n";
    for (const CriticalStep &S : Rep.Path.Steps)
      OS << llvm::formatv("    %{0} '{1}' {7} start {2} end {3} gap {4} "
                          "slack {5}{6}\n",
                          S.Task, G.str(G.task(S.Task).Name),
                          Fmt(Rep.Sim->Start[S.Task] - Rep.Sim->OriginNs),
                          Fmt(Rep.Sim->End[S.Task] - Rep.Sim->OriginNs),
                          Fmt(S.GapNs), Fmt(Rep.Path.SlackNs[S.Task]),
                          S.Blocked ? " blocked" : "", laneOf(G, S.Task));
  }

  void printJson(const Graph &G, const Report &Rep,
                 llvm::raw_ostream &OS) const {
    auto Breakdown = [&](auto EnumTag, const int64_t *ByKey, size_t N,
                         bool GapKey) {
      using EnumT = decltype(EnumTag);
      llvm::json::Object Obj;
      if (GapKey)
        Obj["gap"] = Rep.Time.GapNs;
      for (size_t I = 0; I != N; ++I)
        if (ByKey[I])
          Obj[toString(EnumT(I))] = ByKey[I];
      return Obj;
    };
    auto Groups = [](const std::vector<Group> &Gs) {
      llvm::json::Array Arr;
      for (const Group &Gr : Gs)
        Arr.push_back(llvm::json::Object{
            {"name", Gr.Name}, {"ns", Gr.Ns}, {"count", int64_t(Gr.Count)}});
      return Arr;
    };
    llvm::json::Array Slack;
    for (size_t I = 0; I != NumSlackBuckets; ++I)
      Slack.push_back(llvm::json::Object{
          {"bucket", SlackLabels[I]}, {"tasks", int64_t(Rep.SlackCounts[I])}});

    llvm::json::Object Root{
        {"length_ns", Rep.Sim->MakespanNs},
        {"origin_ns", Rep.Sim->OriginNs},
        {"tasks", int64_t(Rep.NumSteps)},
        {"blocked_tasks", int64_t(Rep.Blocked)},
        {"live_tasks", int64_t(G.numTasks())},
        {"gap_ns", Rep.Time.GapNs},
        {"by_task_kind",
         Breakdown(TaskKind(), Rep.Time.ByTaskKind, NumTaskKinds, true)},
        {"by_phase", Breakdown(Phase(), Rep.Time.ByPhase, NumPhases, false)},
        {"by_lane_kind",
         Breakdown(LaneKind(), Rep.Time.ByLaneKind, NumLaneKinds, true)},
        {"top_kernels", Groups(Rep.Kernels)},
        {"top_ops", Groups(Rep.Ops)},
        {"top_layers", Groups(Rep.Layers)},
        {"first_gap_ns", Rep.First == NoId ? 0 : Rep.FirstGapNs},
        {"starts_with_long_gap", startsWithLongGap(Rep)},
        {"slack", std::move(Slack)}};
    if (O.Tasks)
      Root["path"] = jsonPath(G, Rep);
    OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Root))) << "\n";
  }

  static llvm::json::Array jsonPath(const Graph &G, const Report &Rep) {
    llvm::json::Array Arr;
    for (const CriticalStep &S : Rep.Path.Steps)
      Arr.push_back(llvm::json::Object{
          {"id", int64_t(S.Task)},
          {"name", G.str(G.task(S.Task).Name)},
          {"lane", int64_t(G.task(S.Task).Lane)},
          {"lane_name", G.str(G.lane(G.task(S.Task).Lane).Name)},
          {"rank", int64_t(G.lane(G.task(S.Task).Lane).Rank)},
          {"start_ns", Rep.Sim->Start[S.Task] - Rep.Sim->OriginNs},
          {"end_ns", Rep.Sim->End[S.Task] - Rep.Sim->OriginNs},
          {"gap_ns", S.GapNs},
          {"work_ns", S.WorkNs},
          {"slack_ns", Rep.Path.SlackNs[S.Task]},
          {"blocked", S.Blocked}});
    return Arr;
  }

  PrintCriticalPathOptions O;
};

} // namespace

PassInfo dd::passInfoOfPrintCriticalPath() {
  return passInfo<PrintCriticalPath>();
}
