//===- SimTimeline.cpp - A simulated run as a Chrome/Perfetto trace -------===//
//
// Streamed with llvm::json::OStream, one event per task, so that a graph of
// millions of tasks is written without a JSON tree in memory. Metadata
// events ("M") name the processes and tracks and fix their order.
//
//===----------------------------------------------------------------------===//

#include "SimTimeline.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

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

  void run(const RunView &Run, int Pid);

private:
  void metadata(int Pid, int64_t Tid, llvm::StringRef Kind,
                llvm::StringRef Name, int64_t SortIndex);
  void task(const Graph &G, TaskId T, int Pid, int64_t StartNs,
            int64_t DurationNs);

  llvm::json::OStream J;
};

void TimelineWriter::metadata(int Pid, int64_t Tid, llvm::StringRef Kind,
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

void TimelineWriter::task(const Graph &G, TaskId T, int Pid, int64_t StartNs,
                          int64_t DurationNs) {
  const Task &Tk = G.task(T);
  J.object([&] {
    J.attribute("ph", "X");
    J.attribute("pid", Pid);
    J.attribute("tid", int64_t(Tk.Lane));
    J.attribute("name", G.str(Tk.Name));
    J.attribute("cat", toString(Tk.Kind));
    J.attribute("ts", micros(StartNs));
    J.attribute("dur", micros(DurationNs));
    J.attributeObject("args", [&] {
      J.attribute("task", int64_t(T));
      J.attribute("phase", toString(Tk.Phase));
      if (Tk.Layer != NoId)
        J.attribute("layer", G.str(G.layer(Tk.Layer).Name));
    });
  });
}

void TimelineWriter::run(const RunView &Run, int Pid) {
  const Graph &G = Run.graph();
  metadata(Pid, -1, "process_name", Run.label(), 0);
  metadata(Pid, -1, "process_sort_index", "", Pid);
  for (LaneId L = 0; L != G.numLanes(); ++L) {
    std::string Name =
        (toString(G.lane(L).Kind) + ": " + G.str(G.lane(L).Name)).str();
    metadata(Pid, L, "thread_name", Name, 0);
    metadata(Pid, L, "thread_sort_index", "", L);
  }
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T))
      task(G, T, Pid, Run.start(T), Run.end(T) - Run.start(T));

  // Iterations on a track of their own, after the lanes.
  int64_t IterTid = int64_t(G.numLanes());
  metadata(Pid, IterTid, "thread_name", "iterations", 0);
  metadata(Pid, IterTid, "thread_sort_index", "", IterTid);
  for (size_t I = 0; I != G.iterations().size(); ++I) {
    int64_t Duration = Run.iterationDuration(I);
    if (Duration < 0)
      continue; // predicted without members, or never measured
    J.object([&] {
      J.attribute("ph", "X");
      J.attribute("pid", Pid);
      J.attribute("tid", IterTid);
      J.attribute("name", G.str(G.iterations()[I].Name));
      J.attribute("cat", "iteration");
      J.attribute("ts", micros(Run.iterationStart(I)));
      J.attribute("dur", micros(Duration));
    });
  }
}

} // namespace

void dd::writeTimeline(const RunView &Baseline, const RunView &Predicted,
                       llvm::raw_ostream &OS) {
  TimelineWriter W(OS);
  W.begin();
  W.run(Baseline, 1);
  W.run(Predicted, 2);
  W.end();
}
