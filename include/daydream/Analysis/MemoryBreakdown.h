//===- MemoryBreakdown.h - Where a trace's memory goes ----------*- C++ -*-===//
//
// The memory breakdown of the TBD benchmark study (Zhu et al., IISWC 2018)
// from a graph's memory events: each allocation is paired with its free and
// put in one category by the phase and iteration it was allocated and freed
// in, and per device (the host's a rank apart in a job: each rank is a
// process) the live bytes of every category are followed over
// time, giving a timeline and its peak.
//
// Pairing. A free pairs with the live allocation at its (device, address)
// of its own rank (the rank of its lane): in a job each rank is a process
// of its own, and two processes' allocators hand out the same host
// addresses. Events without an address (the PyTorch profiler's 2021 format
// records none) pair with the latest live allocation of the same rank,
// device and size:
// tensors tend to die in the reverse order of their birth (backward frees
// activations last-in first-out), but blocks of equal size are then
// interchangeable, so such pairings are counted apart. A free that pairs
// with nothing (its block predates the trace) is counted and changes no
// category.
//
// Phase and iteration of an event. The iteration is the last one starting at
// or before the event (none before the first). The phase is that of the
// task on the event's lane (the allocating CPU thread) that contains the
// event in recorded time; between tasks, an allocation takes the phase of
// the next task on the lane (memory is allocated for the op about to run)
// and a free that of the previous one (a block dies after its last use),
// falling back to the other side at the ends of the lane. An event without a
// lane, or on a lane without tasks, is in phase Other. Only recorded tasks
// count here: a task a pass made (TF_Synthetic) has modelled times, and an
// event a pass makes or moves names its task instead (MemoryEvent::Task),
// taking that task's phase; a pass may also name its block's category
// (MemoryEvent::Category on the allocation), which then overrides the rules.
//
// Categories, first rule that matches:
//   weights           never freed, allocated before the first iteration or
//                     in the first iteration's forward phase
//   activations       allocated in forward, freed in backward of the same
//                     iteration
//   weight-gradients  allocated in backward, and never freed, freed in the
//                     optimizer phase or freed in a later iteration
//   optimizer-state   allocated in the optimizer phase, never freed
//   workspace         freed in the phase and iteration it was allocated in
//   other             anything else
//
// Simulated memory (what-ifs). Given a simulation of the graph, each event
// moves with the task that made it: the task on its lane containing it in
// recorded time (it keeps its offset into the task, cut to the task's
// simulated length), else, as for its phase, the next task for an
// allocation (it happens at that task's simulated start) or the previous
// one for a free (at its simulated end). An event naming its task keeps its
// offset into that task's recorded span, cut to between the task's
// simulated start and end (an event a pass made for a task it made, whose
// recorded times are modelled, is at one of the ends). An event on
// no lane, or on a lane without live tasks, keeps its recorded time. A free is
// never simulated before its allocation (a block made on one thread and freed
// on another). Categories stay those of the recording (a block's role does not
// change with its timing); the timeline, its peak and the peak's iteration
// follow the simulated times.
//
// Memory before the trace. The allocator's running total after a device's
// first event, less that event's bytes, is what was allocated before the
// trace window (weights and optimizer state made before profiling): shown
// apart, as an estimate, and in no category.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_ANALYSIS_MEMORYBREAKDOWN_H
#define DAYDREAM_ANALYSIS_MEMORYBREAKDOWN_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <vector>

namespace dd {

class Graph;
struct SimResult;

using CategoryBytes = std::array<int64_t, NumMemoryCategories>;

/// Live bytes by category once every event of one time has happened.
struct MemorySample {
  int64_t TimeNs = 0;
  CategoryBytes Live = {};
  int64_t total() const;
};

struct DeviceMemory {
  /// -1 for host memory.
  int32_t Device = -1;
  /// Host memory: the rank whose process it is (its events' lanes'), -1
  /// where not known or of no rank. Each rank of a job is a process with an
  /// allocator of its own, as each has its own GPU (the job's device index
  /// says which: Import.md, "One index per GPU"); -1 for a GPU.
  int32_t Rank = -1;
  uint64_t Allocations = 0, Frees = 0;
  uint64_t PairedByAddress = 0, PairedBySize = 0;
  uint64_t UnmatchedFrees = 0;
  int64_t UnmatchedFreeBytes = 0;
  /// Bytes and number of allocations per category, over the whole trace.
  CategoryBytes AllocatedBytes = {};
  std::array<uint64_t, NumMemoryCategories> AllocationCount = {};
  /// One sample per distinct event time on this device, in time order.
  std::vector<MemorySample> Timeline;
  /// Index in Timeline of the first sample with the largest total.
  size_t Peak = 0;
  /// The Graph::iterations() index of the iteration the peak falls in, -1 if
  /// none.
  int64_t PeakIteration = -1;
  /// Largest running total the allocator reported, -1 if it reported none.
  int64_t AllocatorPeak = -1;
  /// Allocated before the trace window (see above), -1 if unknown.
  int64_t BeforeTraceBytes = -1;
  /// The peak total over recorded times: the same as the timeline's peak
  /// without a simulation; with one, the recording's beside the what-if's.
  int64_t RecordedPeakBytes = -1;
};

struct MemoryBreakdown {
  /// Devices with memory events, by index (host, -1, first, a rank's
  /// apart in rank order).
  std::vector<DeviceMemory> Devices;
};

/// No memory event: a block without a partner.
constexpr size_t NoMemoryEvent = ~size_t(0);

/// Where an event sits against the task it moves with.
enum class EventOwnerPlace : uint8_t { None, Inside, Before, After };

/// What the breakdown's rules say of each memory event of a graph (indexed
/// like Graph::memoryEvents()): for passes that move or copy blocks, and
/// the breakdown itself.
struct MemoryEventFacts {
  /// The events' indices in recorded time order (stable).
  std::vector<size_t> Order;
  /// The task each event moves with (a pass's, or the recorded rule's), and
  /// where: inside it at OffsetNs, just before it or just after it. NoId
  /// for an event on no lane or a lane without recorded tasks.
  std::vector<TaskId> Owner;
  std::vector<EventOwnerPlace> OwnerPlace;
  /// Offsets into the owner of Inside events (empty if there are none).
  std::vector<int64_t> OffsetNs;
  /// The Graph::iterations() index of the recorded time, -1 before any.
  std::vector<int64_t> Iteration;
  /// An allocation's free and a free's allocation, or NoMemoryEvent.
  std::vector<size_t> Partner;
  /// How a free was paired: 0 not at all, 1 by address, 2 by size.
  std::vector<uint8_t> PairedBy;
  /// The block's category (frees take their allocation's; an unmatched
  /// free is Other).
  std::vector<MemoryCategory> Category;
};

/// O(n log n) in memory events and tasks.
MemoryEventFacts analyzeMemoryEvents(const Graph &G);

/// The iteration whose predicted span in \p R holds \p TimeNs (the latest
/// to start at or before it), -1 if none: a simulated peak's.
int64_t predictedIterationAt(const SimResult &R, int64_t TimeNs);

/// The rank whose process made event \p E: its lane's, or where a pass made
/// it without one, the task it moves with's; -1 if neither is known or of
/// a rank.
int32_t memoryEventRank(const Graph &G, const MemoryEvent &E);

/// What reports call \p D: its device's name ("host" for the host), or
/// "host of rank R" for a rank's host memory in a job.
std::string memoryDeviceName(const Graph &G, const DeviceMemory &D);

/// O(n log n) in memory events and tasks. With \p Simulated (a simulation
/// of \p G that kept its task times, or at least those of the tasks the
/// events move with), the timeline follows the simulated times (above);
/// without, the recorded ones. \p Facts: analyzeMemoryEvents(G), where the
/// caller has it already.
MemoryBreakdown computeMemoryBreakdown(const Graph &G,
                                       const SimResult *Simulated = nullptr,
                                       const MemoryEventFacts *Facts = nullptr);

} // namespace dd

#endif // DAYDREAM_ANALYSIS_MEMORYBREAKDOWN_H
