//===- SimTimeline.cpp - A simulated run as a Chrome/Perfetto trace -------===//
//
// Streamed with llvm::json::OStream, one event per task and per arrow, so
// that a graph of millions of tasks is written without a JSON tree in
// memory. Metadata events ("M") name the processes and tracks and fix
// their order.
//
//===----------------------------------------------------------------------===//

#include "SimTimeline.h"
#include "daydream/Sim/CriticalPath.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <map>
#include <tuple>

using namespace dd;

namespace {

/// Microseconds with nanosecond decimals, as the trace-event format counts.
double micros(int64_t Ns) { return double(Ns) / 1000.0; }

class TimelineWriter {
public:
  explicit TimelineWriter(llvm::raw_ostream &OS) : J(OS) {}

  void begin() {
    J.objectBegin();
    J.attribute("displayTimeUnit", "ns");
    J.attributeBegin("traceEvents");
    J.arrayBegin();
  }
  void end() {
    J.arrayEnd();
    J.attributeEnd();
    J.objectEnd();
  }

  /// Run \p Side (1 baseline, 2 prediction); \p Critical: its critical
  /// path's tasks, by slot (empty: not marked).
  void run(const RunView &Run, int Side, const std::vector<bool> &Critical);

private:
  void metadata(int64_t Pid, int64_t Tid, llvm::StringRef Kind,
                llvm::StringRef Name, int64_t SortIndex);
  void slice(const RunView &Run, TaskId T, int64_t Pid, int64_t Tid,
             bool Critical);
  void arrows(const RunView &Run, const std::vector<int64_t> &PidOfLane);

  llvm::json::OStream J;
  /// Flow ids, unique across both runs.
  int64_t NextFlow = 1;
};

void TimelineWriter::metadata(int64_t Pid, int64_t Tid, llvm::StringRef Kind,
                              llvm::StringRef Name, int64_t SortIndex) {
  J.object([&] {
    J.attribute("ph", "M");
    J.attribute("pid", Pid);
    if (Tid >= 0)
      J.attribute("tid", Tid);
    J.attribute("name", Kind);
    J.attributeObject("args", [&] {
      if (Kind.endswith("sort_index"))
        J.attribute("sort_index", SortIndex);
      else
        J.attribute("name", Name);
    });
  });
}

void TimelineWriter::slice(const RunView &Run, TaskId T, int64_t Pid,
                           int64_t Tid, bool Critical) {
  const Graph &G = Run.graph();
  const Task &Tk = G.task(T);
  J.object([&] {
    J.attribute("ph", "X");
    J.attribute("pid", Pid);
    J.attribute("tid", Tid);
    J.attribute("name", G.str(Tk.Name));
    J.attribute("cat", toString(Tk.Kind));
    J.attribute("ts", micros(Run.start(T)));
    J.attribute("dur", micros(Run.end(T) - Run.start(T)));
    J.attributeObject("args", [&] {
      J.attribute("task", int64_t(T));
      J.attribute("phase", toString(Tk.Phase));
      if (Tk.Layer != NoId)
        J.attribute("layer", G.str(G.layer(Tk.Layer).Name));
      if (Critical)
        J.attribute("critical_path", true);
    });
  });
}

/// A flow arrow ("s" at the source's end, "f" bound to the enclosing slice
/// at the destination's start) for each live edge between two lanes.
void TimelineWriter::arrows(const RunView &Run,
                            const std::vector<int64_t> &PidOfLane) {
  const Graph &G = Run.graph();
  for (const Edge &E : G.edgeSlots()) {
    if (!G.isLive(E))
      continue;
    LaneId From = G.task(E.Src).Lane, To = G.task(E.Dst).Lane;
    if (From == To)
      continue;
    int64_t Id = NextFlow++;
    auto Point = [&](const char *Ph, LaneId L, int64_t Ns) {
      J.object([&] {
        J.attribute("ph", Ph);
        J.attribute("id", Id);
        J.attribute("pid", PidOfLane[L]);
        J.attribute("tid", int64_t(L));
        J.attribute("ts", micros(Ns));
        J.attribute("cat", toString(E.Kind));
        J.attribute("name", toString(E.Kind));
        if (Ph[0] == 'f')
          J.attribute("bp", "e");
      });
    };
    // The arrow leaves where the source ended and lands inside the
    // destination's slice, so that the viewer binds it: where it started,
    // or, for a call that was waiting (a sync), where the wait was met.
    int64_t Lands =
        std::min(std::max(Run.end(E.Src), Run.start(E.Dst)), Run.end(E.Dst));
    Point("s", From, Run.end(E.Src));
    Point("f", To, Lands);
  }
}

void TimelineWriter::run(const RunView &Run, int Side,
                         const std::vector<bool> &Critical) {
  const Graph &G = Run.graph();
  // One process a rank and place: its host's threads, each GPU's
  // streams, its communication channels (a job's own, of no rank, too).
  std::map<std::tuple<int32_t, int32_t, bool>, int64_t> Processes;
  std::vector<int64_t> PidOfLane(G.numLanes());
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    const Lane &Ln = G.lane(L);
    auto Key =
        std::make_tuple(Ln.Rank, Ln.Device, Ln.Kind == LaneKind::CommChannel);
    auto [It, New] = Processes.try_emplace(
        Key, int64_t(Side) * 100000 + int64_t(Processes.size()) + 1);
    PidOfLane[L] = It->second;
  }
  const bool Job = G.metadata().Ranks.size() > 1;
  for (const auto &[Key, Pid] : Processes) {
    auto [Rank, Device, Channels] = Key;
    std::string Name = Run.label();
    if (Rank < 0 && Job)
      Name += " | job";
    else if (Job || Rank > 0)
      Name += (" | rank " + llvm::Twine(Rank)).str();
    if (Device >= 0)
      Name += (" | GPU " + llvm::Twine(Device)).str();
    Name += Channels ? " | communication" : Device < 0 ? " | host" : "";
    metadata(Pid, -1, "process_name", Name, 0);
    metadata(Pid, -1, "process_sort_index", "", Pid);
  }
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    std::string Name =
        (toString(G.lane(L).Kind) + ": " + G.str(G.lane(L).Name)).str();
    metadata(PidOfLane[L], L, "thread_name", Name, 0);
    metadata(PidOfLane[L], L, "thread_sort_index", "", L);
  }
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T))
      slice(Run, T, PidOfLane[G.task(T).Lane], G.task(T).Lane,
            !Critical.empty() && Critical[T]);

  // Iterations, and the critical path, on tracks of their own after the
  // lanes, in the run's first process.
  const int64_t FirstPid = int64_t(Side) * 100000 + 1;
  int64_t IterTid = int64_t(G.numLanes());
  metadata(FirstPid, IterTid, "thread_name", "iterations", 0);
  metadata(FirstPid, IterTid, "thread_sort_index", "", IterTid);
  for (size_t I = 0; I != G.iterations().size(); ++I) {
    int64_t Duration = Run.iterationDuration(I);
    if (Duration < 0)
      continue; // predicted without members, or never measured
    J.object([&] {
      J.attribute("ph", "X");
      J.attribute("pid", FirstPid);
      J.attribute("tid", IterTid);
      J.attribute("name", G.str(G.iterations()[I].Name));
      J.attribute("cat", "iteration");
      J.attribute("ts", micros(Run.iterationStart(I)));
      J.attribute("dur", micros(Duration));
    });
  }
  if (!Critical.empty()) {
    int64_t PathTid = IterTid + 1;
    metadata(FirstPid, PathTid, "thread_name", "critical path", 0);
    metadata(FirstPid, PathTid, "thread_sort_index", "", PathTid);
    for (TaskId T = 0; T != G.numTaskSlots(); ++T)
      if (Critical[T])
        slice(Run, T, FirstPid, PathTid, true);
  }
  arrows(Run, PidOfLane);
}

/// The tasks on \p Run's critical path, by slot; empty for recorded times.
llvm::Expected<std::vector<bool>> criticalTasks(const RunView &Run) {
  std::vector<bool> On;
  if (!Run.simulated() || Run.graph().numTasks() == 0)
    return On;
  auto Path = findCriticalPath(Run.graph(), *Run.result(), nullptr);
  if (!Path)
    return Path.takeError();
  On.assign(Run.graph().numTaskSlots(), false);
  for (const CriticalStep &S : Path->Steps)
    On[S.Task] = true;
  return On;
}

} // namespace

llvm::Error dd::writeTimeline(const RunView &Baseline, const RunView &Predicted,
                              llvm::raw_ostream &OS) {
  auto BaseCritical = criticalTasks(Baseline);
  if (!BaseCritical)
    return BaseCritical.takeError();
  auto Critical = criticalTasks(Predicted);
  if (!Critical)
    return Critical.takeError();
  TimelineWriter W(OS);
  W.begin();
  W.run(Baseline, 1, *BaseCritical);
  W.run(Predicted, 2, *Critical);
  W.end();
  return llvm::Error::success();
}
