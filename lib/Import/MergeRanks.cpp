//===- MergeRanks.cpp - Several graphs into one, lanes tagged by rank -----===//
//
// Tasks are appended lane by lane in each lane's order, so lane order (which
// the simulator follows) is kept whatever the task numbering was; the writer
// renumbers them canonically anyway.
//
//===----------------------------------------------------------------------===//

#include "MergeRanks.h"
#include "daydream/IR/GraphBuilder.h"

#include <algorithm>

using namespace dd;
using namespace dd::import;

namespace {

/// Re-interns one rank's strings into the job's table on first use.
class StringMap {
public:
  StringMap(const Graph &From, Graph &To)
      : From(From), To(To), NewId(From.strings().size(), NoId) {}

  StrId operator()(StrId Old) {
    if (Old == NoId || Old >= NewId.size())
      return Old;
    if (NewId[Old] == NoId)
      NewId[Old] = To.intern(From.str(Old));
    return NewId[Old];
  }

private:
  const Graph &From;
  Graph &To;
  std::vector<StrId> NewId;
};

/// The rank's lanes and iterations, tagged with its rank, the lanes on
/// the job's devices.
void appendLanesAndIterations(Graph &Job, const RankGraph &R, StringMap &Str,
                              const RankDevices &Devices) {
  for (const Lane &L : R.G.lanes()) {
    Lane NL = L;
    NL.Name = Str(L.Name);
    NL.Rank = R.Rank;
    NL.Device = Devices(L.Device);
    Job.addLane(NL);
  }
  for (const Iteration &I : R.G.iterations()) {
    Iteration NI = I;
    NI.Name = Str(I.Name);
    NI.Rank = R.Rank;
    Job.iterationsMut().push_back(NI);
  }
}

void appendRank(Graph &Job, const RankGraph &R, const RankDevices &Devices) {
  const Graph &G = R.G;
  StringMap Str(G, Job);
  const LaneId LaneBase = Job.numLanes();
  appendLanesAndIterations(Job, R, Str, Devices);
  const LayerId LayerBase = Job.numLayers();
  for (const Layer &L : G.layers())
    Job.addLayer(
        Layer{Str(L.Name), L.Parent == NoId ? NoId : L.Parent + LayerBase});
  const AttrId AttrBase = Job.attrSlots().size();
  for (const TaskAttrs &A : G.attrSlots())
    GraphBuilder(Job).addAttrSlot(A);

  std::vector<TaskId> NewId(G.numTaskSlots(), NoId);
  for (LaneId L = 0; L != G.numLanes(); ++L)
    for (TaskId T = G.laneHead(L); T != NoId; T = G.nextOnLane(T)) {
      Task NT = G.task(T);
      NT.Name = Str(NT.Name);
      NT.Lane += LaneBase;
      if (NT.Layer != NoId)
        NT.Layer += LayerBase;
      if (NT.Attrs != NoId)
        NT.Attrs += AttrBase;
      NewId[T] = Job.addTask(NT);
    }
  for (const Edge &E : G.edgeSlots())
    if (G.isLive(E))
      Job.addEdge(NewId[E.Src], NewId[E.Dst], E.Kind);
  for (const TaskNote &N : G.notes())
    if (N.Task < NewId.size() && NewId[N.Task] != NoId)
      Job.addNote(TaskNote{NewId[N.Task], Str(N.Key), Str(N.Value)});
  for (MemoryEvent E : G.memoryEvents()) {
    if (E.Lane != NoId)
      E.Lane += LaneBase;
    // An event a pass made names the task it moves with (a rank's file
    // that went through a pipeline on its own, dd-opt job.ddjob).
    if (E.Task != NoId)
      E.Task = E.Task < NewId.size() ? NewId[E.Task] : NoId;
    E.Device = Devices(E.Device);
    Job.addMemoryEvent(E);
  }
}

/// The rank's devices (those of an index not yet known, and those given an
/// index of their own, as the rank or else the job declares them), its
/// RankInfo and the pipelines it went through.
void appendRankMetadata(Graph &Job, const RankGraph &R, int32_t CopyOf,
                        const RankDevices &Devices) {
  Metadata &M = Job.metadata();
  auto Declared = [](const std::vector<Device> &In, int32_t Index) {
    return std::find_if(In.begin(), In.end(),
                        [&](const Device &E) { return E.Index == Index; });
  };
  const std::vector<Device> &Own = R.G.metadata().Devices;
  for (const Device &D : Own)
    if (Devices(D.Index) == D.Index &&
        Declared(M.Devices, D.Index) == M.Devices.end())
      M.Devices.push_back(D);
  for (auto [From, To] : Devices.renumbered()) {
    auto It = Declared(Own, From);
    if (It == Own.end()) {
      It = Declared(M.Devices, From);
      if (It == M.Devices.end())
        continue;
    }
    Device D = *It; // a copy: pushing may move the job's array
    D.Index = To;
    if (Declared(M.Devices, To) == M.Devices.end())
      M.Devices.push_back(std::move(D));
  }
  std::string Host = R.G.metadata().Ranks.empty()
                         ? std::string()
                         : R.G.metadata().Ranks.front().Host;
  M.Ranks.push_back(RankInfo{R.Rank, R.WorldSize, Host, CopyOf});
  // A split job's ranks that went through a pipeline one at a time
  // (dd-opt job.ddjob -o new.ddjob) each record it where it changed them:
  // the job is the pipeline's prediction if any rank is.
  if (M.Pipelines.empty())
    M.Pipelines = R.G.metadata().Pipelines;
}

} // namespace

RankSpan dd::import::appendRankGraph(Graph &Job, RankGraph &&R,
                                     JobDevices &Devices) {
  Metadata &M = Job.metadata();
  if (M.Ranks.empty()) {
    M.Producer = R.G.metadata().Producer;
    M.SourceFormat = R.G.metadata().SourceFormat;
  }
  RankSpan S;
  S.Rank = R.Rank;
  auto Sizes = [&](bool End) {
    auto Set = [&](RankSpan::Range &Rg, size_t N) {
      (End ? Rg.End : Rg.Begin) = N;
    };
    Set(S.Lanes, Job.numLanes());
    Set(S.Layers, Job.numLayers());
    Set(S.Iterations, Job.iterations().size());
    Set(S.Tasks, Job.numTaskSlots());
    Set(S.Attrs, Job.attrSlots().size());
    Set(S.Edges, Job.edgeSlots().size());
    Set(S.Notes, Job.notes().size());
    Set(S.Events, Job.memoryEvents().size());
  };
  const RankDevices Numbered =
      Devices.number(R.Rank, R.G.lanes(), R.G.metadata().Devices);
  Sizes(false);
  appendRank(Job, R, Numbered);
  Sizes(true);
  appendRankMetadata(Job, R, -1, Numbered);
  R.G = Graph();
  return S;
}

void dd::import::appendRankCopy(Graph &Job, RankGraph &&R, const RankSpan &Of,
                                JobDevices &Devices,
                                const std::function<void(Lane &)> &CopyLane) {
  RankDevices Numbered;
  if (R.G.numLanes() != 0) {
    Numbered = Devices.number(R.Rank, R.G.lanes(), R.G.metadata().Devices);
    StringMap Str(R.G, Job);
    appendLanesAndIterations(Job, R, Str, Numbered);
  } else {
    // Of's lanes, as the copy's trace would record them.
    std::vector<Lane> Lanes(Job.lanes().begin() + Of.Lanes.Begin,
                            Job.lanes().begin() + Of.Lanes.End);
    for (Lane &L : Lanes) {
      L.Rank = R.Rank;
      if (CopyLane)
        CopyLane(L);
    }
    Numbered = Devices.number(R.Rank, Lanes, R.G.metadata().Devices);
    for (Lane &L : Lanes) {
      L.Device = Numbered(L.Device);
      Job.addLane(L);
    }
    for (size_t I = Of.Iterations.Begin; I != Of.Iterations.End; ++I) {
      Iteration NI = Job.iterations()[I];
      NI.Rank = R.Rank;
      Job.iterationsMut().push_back(NI);
    }
  }
  appendRankMetadata(Job, R, Of.Rank, Numbered);
  R.G = Graph();
}
