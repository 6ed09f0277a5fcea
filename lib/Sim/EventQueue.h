//===- EventQueue.h - The event engine's time-ordered queue -----*- C++ -*-===//
//
// Private to lib/Sim. The event-driven engine (EventReplay.cpp) replays in
// time order; this is its queue of pending events: a task's own duration
// running out, or an idle ByPriority lane picking its next task. Events pop
// in (time, kind, sequence) order: at one instant every end is seen before
// any pick, and the sequence number (the order of pushes) breaks the
// remaining ties, so the replay is deterministic. Kind and sequence share one
// 64-bit word so that an order test is two integer compares, not three.
//
// The queue rarely holds more than one event per lane, so a plain binary heap
// beats a bucketed queue here. On the graphs that matter it holds less than
// one event on average: most pushes are a CPU thread's next short task, which
// is the earliest pending event and the next one popped. So the earliest
// event, when it was pushed as such, waits in a slot in front of the heap,
// and such a push and its pop never touch the heap. Which events come out,
// and in which order, is the same either way: the order is total, since no
// two events share a sequence number.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_SIM_EVENTQUEUE_H
#define DAYDREAM_LIB_SIM_EVENTQUEUE_H

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dd::sim {

enum class EventKind : uint8_t {
  /// A task's own duration has elapsed; the event's Id is the task.
  DurationDone = 0,
  /// An idle ByPriority lane picks its next ready task; Id is the lane.
  Dispatch = 1,
};

struct Event {
  int64_t Time;
  /// The kind in the top bit, the push's sequence number below it.
  uint64_t Rank;
  uint32_t Id;

  EventKind kind() const { return EventKind(Rank >> 63); }
  bool before(const Event &O) const {
    return Time < O.Time || (Time == O.Time && Rank < O.Rank);
  }
};

class EventQueue {
public:
  bool empty() const { return !HasFront && Heap.empty(); }
  size_t size() const { return HasFront + Heap.size(); }
  void reserve(size_t N) { Heap.reserve(N); }

  void push(int64_t Time, EventKind Kind, uint32_t Id) {
    assert(NextSeq < (uint64_t(1) << 63) && "sequence overflows its bits");
    Event Ev{Time, uint64_t(Kind) << 63 | NextSeq++, Id};
    if (HasFront) {
      if (!Ev.before(Front))
        return pushHeap(Ev);
      pushHeap(Front);
      Front = Ev;
      return;
    }
    if (!Heap.empty() && !Ev.before(Heap[0]))
      return pushHeap(Ev);
    Front = Ev;
    HasFront = true;
  }

  /// Removes and returns the earliest event. The queue must not be empty.
  Event pop() {
    if (HasFront) {
      HasFront = false;
      return Front;
    }
    return popHeap();
  }

private:
  void pushHeap(Event Ev) {
    // Sift the hole up from the new leaf.
    size_t Hole = Heap.size();
    Heap.push_back(Ev);
    Event *H = Heap.data();
    while (Hole != 0) {
      size_t Parent = (Hole - 1) / 2;
      if (!Ev.before(H[Parent]))
        break;
      H[Hole] = H[Parent];
      Hole = Parent;
    }
    H[Hole] = Ev;
  }

  Event popHeap() {
    assert(!Heap.empty() && "pop from an empty event queue");
    Event *H = Heap.data();
    Event Top = H[0];
    Event Last = Heap.back();
    Heap.pop_back();
    const size_t N = Heap.size();
    if (N == 0)
      return Top;
    // Sift the hole down from the root, then drop the former last leaf in.
    size_t Hole = 0;
    for (size_t Child = 1; Child < N; Child = 2 * Hole + 1) {
      if (Child + 1 < N && H[Child + 1].before(H[Child]))
        ++Child;
      if (!H[Child].before(Last))
        break;
      H[Hole] = H[Child];
      Hole = Child;
    }
    H[Hole] = Last;
    return Top;
  }

  /// Before every event in Heap, when HasFront.
  Event Front{};
  bool HasFront = false;
  std::vector<Event> Heap;
  uint64_t NextSeq = 0;
};

} // namespace dd::sim

#endif // DAYDREAM_LIB_SIM_EVENTQUEUE_H
