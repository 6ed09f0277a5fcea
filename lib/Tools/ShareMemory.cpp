//===- ShareMemory.cpp - The memory replay of a job read in shares --------===//

#include "ShareMemory.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <set>
#include <utility>

using namespace dd;

bool dd::memoryIsRankLocal(const Graph &G) {
  std::set<std::pair<int32_t, int32_t>> RankDevices;
  for (const Lane &L : G.lanes())
    if (L.Device >= 0)
      RankDevices.insert({L.Rank, L.Device});
  return llvm::all_of(G.memoryEvents(), [&](const MemoryEvent &E) {
    const int32_t Rank = memoryEventRank(G, E);
    return Rank >= 0 && (E.Device < 0 || RankDevices.count({Rank, E.Device}));
  });
}

ShareMemoryTimes::ShareMemoryTimes(const Graph &G, TaskTimeObserver *Inner)
    : Inner(Inner), Facts(analyzeMemoryEvents(G)) {
  for (TaskId T : Facts.Owner)
    if (T != NoId)
      Wanted.push_back(T);
  llvm::sort(Wanted);
  Wanted.erase(std::unique(Wanted.begin(), Wanted.end()), Wanted.end());
  if (!Wanted.empty()) {
    Start.assign(G.numTaskSlots(), -1);
    End.assign(G.numTaskSlots(), -1);
  }
}

void ShareMemoryTimes::ran(TaskId First, llvm::ArrayRef<int64_t> S,
                           llvm::ArrayRef<int64_t> E) {
  if (Inner)
    Inner->ran(First, S, E);
  // Runs come in slot order: the wanted tasks before this one are not ours.
  const TaskId Last = First + static_cast<TaskId>(S.size());
  while (Next != Wanted.size() && Wanted[Next] < First)
    ++Next;
  for (; Next != Wanted.size() && Wanted[Next] < Last; ++Next) {
    const TaskId T = Wanted[Next];
    Start[T] = S[T - First];
    End[T] = E[T - First];
  }
}

SimResult ShareMemoryTimes::takeTimes(int64_t OriginNs) {
  SimResult R;
  R.OriginNs = OriginNs;
  for (TaskId T : Wanted)
    if (Start[T] >= 0) {
      Start[T] += OriginNs;
      End[T] += OriginNs;
    }
  R.Start = std::move(Start);
  R.End = std::move(End);
  return R;
}

void ShareMemoryTimes::finish(int64_t OriginNs) {
  if (Inner)
    Inner->finish(OriginNs);
}
bool ShareMemoryTimes::complete() const { return !Inner || Inner->complete(); }
void ShareMemoryTimes::pack(std::vector<int64_t> &Out) {
  if (Inner)
    Inner->pack(Out);
}
bool ShareMemoryTimes::merge(llvm::ArrayRef<int64_t> Packed) {
  return Inner ? Inner->merge(Packed) : Packed.empty();
}
bool ShareMemoryTimes::mergesUp() const { return Inner && Inner->mergesUp(); }
void ShareMemoryTimes::packUp(std::vector<int64_t> &Out) {
  if (Inner)
    Inner->packUp(Out);
}
bool ShareMemoryTimes::mergeUp(llvm::ArrayRef<int64_t> Packed) {
  return Inner ? Inner->mergeUp(Packed) : Packed.empty();
}
void ShareMemoryTimes::laneOwners(llvm::ArrayRef<uint32_t> Owner, unsigned Me) {
  if (Inner)
    Inner->laneOwners(Owner, Me);
}

namespace {

/// What the report reads of a device, as values: the peak alone of its
/// timeline (none where it has no sample).
void packDevice(const DeviceMemory &D, std::vector<int64_t> &Out) {
  Out.insert(Out.end(),
             {D.Device, D.Rank, static_cast<int64_t>(D.Allocations),
              static_cast<int64_t>(D.Frees),
              static_cast<int64_t>(D.PairedByAddress),
              static_cast<int64_t>(D.PairedBySize),
              static_cast<int64_t>(D.UnmatchedFrees), D.UnmatchedFreeBytes,
              D.AllocatorPeak, D.BeforeTraceBytes, D.RecordedPeakBytes});
  Out.insert(Out.end(), D.AllocatedBytes.begin(), D.AllocatedBytes.end());
  for (uint64_t N : D.AllocationCount)
    Out.push_back(static_cast<int64_t>(N));
  Out.push_back(!D.Timeline.empty());
  if (D.Timeline.empty())
    return;
  const MemorySample &Peak = D.Timeline[D.Peak];
  Out.push_back(Peak.TimeNs);
  Out.insert(Out.end(), Peak.Live.begin(), Peak.Live.end());
}

/// The device packDevice() wrote at \p At, which it advances; None if the
/// values end early.
llvm::Optional<DeviceMemory> unpackDevice(llvm::ArrayRef<int64_t> In,
                                          size_t &At) {
  constexpr size_t Head = 11 + 2 * NumMemoryCategories + 1;
  if (In.size() - At < Head)
    return llvm::None;
  const int64_t *V = In.data() + At;
  DeviceMemory D;
  D.Device = static_cast<int32_t>(V[0]);
  D.Rank = static_cast<int32_t>(V[1]);
  D.Allocations = static_cast<uint64_t>(V[2]);
  D.Frees = static_cast<uint64_t>(V[3]);
  D.PairedByAddress = static_cast<uint64_t>(V[4]);
  D.PairedBySize = static_cast<uint64_t>(V[5]);
  D.UnmatchedFrees = static_cast<uint64_t>(V[6]);
  D.UnmatchedFreeBytes = V[7];
  D.AllocatorPeak = V[8];
  D.BeforeTraceBytes = V[9];
  D.RecordedPeakBytes = V[10];
  V += 11;
  for (unsigned C = 0; C != NumMemoryCategories; ++C)
    D.AllocatedBytes[C] = *V++;
  for (unsigned C = 0; C != NumMemoryCategories; ++C)
    D.AllocationCount[C] = static_cast<uint64_t>(*V++);
  const bool HasPeak = *V++ != 0;
  At += Head;
  if (!HasPeak)
    return D;
  if (In.size() - At < 1 + NumMemoryCategories)
    return llvm::None;
  MemorySample Peak;
  Peak.TimeNs = *V++;
  for (unsigned C = 0; C != NumMemoryCategories; ++C)
    Peak.Live[C] = *V++;
  At += 1 + NumMemoryCategories;
  D.Timeline.push_back(Peak);
  D.Peak = 0;
  return D;
}

} // namespace

llvm::Optional<MemoryBreakdown> dd::gatherShareMemory(const Graph &Share,
                                                      ShareMemoryTimes &Times,
                                                      const SimResult *Result,
                                                      ProcessGroup &PG) {
  constexpr auto Results = ProcessGroup::Channel::Results;
  const unsigned Me = PG.index();
  std::vector<int64_t> Values;
  int64_t Origin = 0;
  if (Me == 0) {
    Origin = Result ? Result->OriginNs : 0;
    for (unsigned P = 1; P != PG.size(); ++P)
      PG.send(P, Results, {Origin});
  } else {
    PG.receive(0, Results, Values);
    Origin = Values.empty() ? 0 : Values.front();
  }
  // This share's events, replayed from its own tasks' times (a partial
  // result: no iterations, so no peak's iteration yet).
  const SimResult Mine = Times.takeTimes(Origin);
  MemoryBreakdown Own = computeMemoryBreakdown(Share, &Mine, &Times.facts());
  if (Me != 0) {
    Values.clear();
    for (const DeviceMemory &D : Own.Devices)
      packDevice(D, Values);
    PG.send(0, Results, Values);
    return llvm::None;
  }
  std::vector<DeviceMemory> All = std::move(Own.Devices);
  for (unsigned P = 1; P != PG.size(); ++P) {
    Values.clear();
    PG.receive(P, Results, Values);
    for (size_t At = 0; At != Values.size();) {
      auto D = unpackDevice(Values, At);
      if (!D)
        break;
      All.push_back(std::move(*D));
    }
  }
  // In the order one process's breakdown has them: by device, a rank's
  // host memory apart in rank order.
  llvm::sort(All, [](const DeviceMemory &A, const DeviceMemory &B) {
    return std::make_pair(A.Device, A.Rank) < std::make_pair(B.Device, B.Rank);
  });
  MemoryBreakdown B;
  for (DeviceMemory &D : All) {
    D.PeakIteration = -1;
    if (Result && !D.Timeline.empty())
      D.PeakIteration =
          predictedIterationAt(*Result, D.Timeline[D.Peak].TimeNs);
    B.Devices.push_back(std::move(D));
  }
  return B;
}
