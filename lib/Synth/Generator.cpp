//===- Generator.cpp - Running a program into every rank's trace ----------===//
//
// Each rank runs the family's iteration program (Program.h) for every
// iteration, keeping the clocks a profiler would see: one CPU clock that
// the main thread and the autograd thread hand over, and, per stream, when
// its last work ends. The rules are the ones the importer's lowering reads
// back (docs/Import.md), so that replaying the graph reproduces the trace:
//
//   - a call starts after untraced CPU time (Rng::cpuGap) and lasts a few
//     microseconds; a launch into a full queue (1024 kernels pending on the
//     stream) returns only when the oldest of them ends;
//   - GPU work starts 1-4 us (the GPU's scheduling latency) after the
//     latest of its launch's end, its stream's previous work and the events
//     its stream was told to wait for;
//   - cudaStreamSynchronize returns 1-3 us after its stream's work ends;
//   - an NCCL kernel ends when the last rank has reached it plus the
//     transfer time, on every rank.
//
// The last rule couples the ranks, so generateJob() runs them in step:
// every rank runs until it launches its next collective, the collective's
// end is settled, and every rank goes on.
//
//===----------------------------------------------------------------------===//

#include "Program.h"
#include "daydream/Synth/Random.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>

using namespace dd;
using namespace dd::import;
using namespace dd::synth;

namespace {

constexpr int64_t Us = 1000;
/// Kernels a stream may have launched and not finished before a launch
/// blocks (the CUDA launch queue).
constexpr size_t QueueDepth = 1024;
/// Where every trace's clock starts: 2023-11-14, as a profiler's epoch
/// nanoseconds.
constexpr int64_t StartNs = 1700000000000000000;
constexpr int64_t FirstStep = 1;
constexpr int32_t DevicesPerNode = 8;

/// Where a rank runs: its node's GPU and its process id (threads are the
/// process id and that plus 17).
int32_t rankDevice(int32_t Rank) { return Rank % DevicesPerNode; }
int64_t rankPid(int32_t Rank) { return 4200 + 10 * int64_t(Rank); }
constexpr int64_t StreamIds[NumStreamRoles] = {7, 24, 28};

/// The A100 the families' times are for, as deviceProperties names it.
Device nodeDevice(int32_t Index) {
  Device D;
  D.Index = Index;
  D.Name = "NVIDIA A100-SXM4-80GB";
  D.SmCount = 108;
  D.MemoryBytes = 85899345920;
  return D;
}

class RankGen {
public:
  RankGen(const Program &P, const JobPlan &Plan, int32_t Rank);

  /// Runs until the next collective is launched (true) or the run ends.
  bool run();
  /// When the pending collective's kernel started, its size and kind.
  int64_t pendingStart() const { return M.Activities[Pending].StartNs; }
  const Op &pendingOp() const { return P.Ops[Pc - 1]; }
  /// Ends the pending collective at \p EndNs.
  void finishCollective(int64_t EndNs);

  TraceModel take() { return std::move(M); }

private:
  void exec(const Op &O);
  void beginStep();
  void endStep();
  /// Time scaled by the rank's speed.
  int64_t scaled(int64_t Ns) const {
    return Ns >= 0 && Ns < (int64_t(1) << 42)
               ? int64_t(uint64_t(Ns) * SpeedPpm / 1000000)
               : int64_t(__int128(Ns) * SpeedPpm / 1000000);
  }
  uint32_t call(uint32_t Name, ApiKind Kind, int64_t GapNs, int64_t DurNs);
  uint32_t stream(StreamRole S);
  /// Adds GPU work on \p S launched by the call that just ended; returns
  /// its index. \p DurNs < 0: the end is not known yet (a collective).
  uint32_t activity(StreamRole S, uint32_t Name, TaskKind Kind, int64_t DurNs,
                    const TaskAttrs &Attrs);

  struct OpenRange {
    int64_t StartNs;
    uint32_t Name;
    RangeKind Kind;
  };
  struct Event {
    uint32_t Correlation = 0;
    StreamRole Stream = StreamRole::Compute;
    int64_t TimeNs = 0;
  };

  const Program &P;
  const JobPlan &Plan;
  TraceModel M;
  Rng R;
  int32_t Device;
  int64_t Pid;
  uint32_t SpeedPpm;
  int64_t Clock;
  ThreadRole Thread = ThreadRole::Main;
  uint32_t Threads[NumThreadRoles];
  uint32_t Streams[NumStreamRoles] = {NoId, NoId, NoId};
  int64_t StreamFree[NumStreamRoles] = {};
  /// The latest event the stream was told to wait for, applied to the next
  /// work issued to it.
  int64_t StreamWait[NumStreamRoles] = {};
  std::vector<Event> Events;
  std::vector<OpenRange> Open[NumThreadRoles];
  /// Ends of the compute stream's last QueueDepth activities, a ring.
  std::vector<int64_t> Queue;
  size_t QueueNext = 0;
  uint32_t NextCorrelation = 1000;
  unsigned Iteration = 0;
  size_t Pc = 0;
  bool InStep = false;
  uint32_t Pending = NoId;
  StreamRole PendingStream = StreamRole::Comm;
  /// The rank's process groups by GroupRole, named only with tensor
  /// parallelism (otherwise every collective is on the world, which
  /// pre-2024 traces do not name).
  StrId GroupName[2] = {NoId, NoId}, GroupRanks[2] = {NoId, NoId};
};

RankGen::RankGen(const Program &P, const JobPlan &Plan, int32_t Rank)
    : P(P), Plan(Plan),
      R(deriveSeed(Plan.Seed, Plan.IdenticalRanks ? 0 : uint64_t(Rank))),
      Device(rankDevice(Rank)), Pid(rankPid(Rank)), Events(P.NumSlots) {
  // Program names first, so that a name's index is its StrId.
  M.Strings.reserve(P.Names.size() + Plan.Iterations + 8);
  for (const std::string &Name : P.Names)
    M.Strings.intern(Name);
  int32_t World = int32_t(Plan.Ranks);
  for (int32_t D = 0; D != std::min(World, DevicesPerNode); ++D)
    M.Meta.Devices.push_back(nodeDevice(D));
  M.Meta.Ranks.push_back(RankInfo{Rank, World, ""});
  M.Meta.SourceFormat = "synthetic";
  Threads[0] = M.thread(Pid, Pid);
  Threads[1] = M.thread(Pid, Pid + 17);
  M.Threads[Threads[0]].Name = M.Strings.intern("python");
  M.Threads[Threads[1]].Name = M.Strings.intern("pt_autograd_0");

  if (Plan.TensorParallel > 1) {
    // Numbered as torch.distributed numbers the groups it creates after
    // the default one: the tensor-parallel groups, then the data-parallel
    // ones.
    unsigned T = Plan.TensorParallel, Tps = Plan.Ranks / T;
    auto Members = [](unsigned First, unsigned Stride, unsigned N) {
      std::string S = "[";
      for (unsigned I = 0; I != N; ++I)
        S += (I ? ", " : "") + std::to_string(First + I * Stride);
      return S + "]";
    };
    unsigned Tp = unsigned(Rank) / T, Dp = unsigned(Rank) % T;
    GroupName[unsigned(GroupRole::TensorParallel)] =
        M.Strings.intern(std::to_string(1 + Tp));
    GroupRanks[unsigned(GroupRole::TensorParallel)] =
        M.Strings.intern(Members(Tp * T, 1, T));
    GroupName[unsigned(GroupRole::DataParallel)] =
        M.Strings.intern(std::to_string(1 + Tps + Dp));
    GroupRanks[unsigned(GroupRole::DataParallel)] =
        M.Strings.intern(Members(Dp, T, Tps));
  }

  int64_t J = Plan.JitterPpm;
  SpeedPpm = uint32_t(1000000 + R.uniformInt(-J, J));
  Clock = StartNs + R.uniformInt(0, 50 * Us);

  uint64_t N = Plan.Iterations;
  M.Ranges.reserve(N * (P.Ranges + 1));
  M.Calls.reserve(N * P.Calls);
  M.Activities.reserve(N * P.Activities);
  M.Syncs.reserve(N * P.Syncs);
}

uint32_t RankGen::stream(StreamRole S) {
  uint32_t &Index = Streams[unsigned(S)];
  if (Index == NoId) {
    int64_t Id = StreamIds[unsigned(S)];
    Index = M.stream(Device, Id);
    M.Streams[Index].Name = M.Strings.intern("stream " + std::to_string(Id));
  }
  return Index;
}

uint32_t RankGen::call(uint32_t Name, ApiKind Kind, int64_t GapNs,
                       int64_t DurNs) {
  Clock += R.cpuGap(scaled(GapNs));
  ApiCall C;
  C.StartNs = Clock;
  C.EndNs = Clock + scaled(R.around(DurNs, 250000));
  C.Thread = Threads[unsigned(Thread)];
  C.Name = Name;
  C.Correlation = NextCorrelation++;
  C.Kind = Kind;
  M.Calls.push_back(C);
  Clock = C.EndNs;
  return C.Correlation;
}

uint32_t RankGen::activity(StreamRole S, uint32_t Name, TaskKind Kind,
                           int64_t DurNs, const TaskAttrs &Attrs) {
  ApiCall &Launch = M.Calls.back();
  bool Compute = S == StreamRole::Compute;
  // A full launch queue holds the call until its oldest kernel ends.
  if (Compute && Queue.size() == QueueDepth &&
      Queue[QueueNext] + Us > Launch.EndNs) {
    Launch.EndNs = Queue[QueueNext] + R.uniformInt(Us, 2 * Us);
    Clock = Launch.EndNs;
  }
  unsigned SI = unsigned(S);
  GpuActivity A;
  A.StartNs = std::max({Launch.EndNs, StreamFree[SI], StreamWait[SI]}) +
              R.uniformInt(Us, 4 * Us);
  A.EndNs = DurNs < 0 ? A.StartNs : A.StartNs + DurNs;
  A.Stream = stream(S);
  A.Name = Name;
  A.Correlation = Launch.Correlation;
  A.Kind = Kind;
  A.HasAttrs = true;
  A.Attrs = Attrs;
  M.Activities.push_back(A);
  StreamFree[SI] = A.EndNs;
  StreamWait[SI] = 0;
  if (Compute) {
    if (Queue.size() < QueueDepth)
      Queue.push_back(A.EndNs);
    else
      Queue[QueueNext] = A.EndNs;
    QueueNext = (QueueNext + 1) % QueueDepth;
  }
  return uint32_t(M.Activities.size() - 1);
}

void RankGen::exec(const Op &O) {
  unsigned SI = unsigned(O.Stream);
  switch (O.Kind) {
  case OpKind::Open: {
    Clock += R.cpuGap(scaled(2 * Us));
    Open[unsigned(Thread)].push_back(
        OpenRange{Clock, O.Name, RangeKind(O.Aux)});
    Clock += scaled(R.around(1500, 300000));
    return;
  }
  case OpKind::Close: {
    Clock += scaled(R.around(1500, 300000));
    OpenRange Rg = Open[unsigned(Thread)].back();
    Open[unsigned(Thread)].pop_back();
    M.Ranges.push_back(CpuRange{Rg.StartNs, Clock, Threads[unsigned(Thread)],
                                Rg.Name, Rg.Kind});
    return;
  }
  case OpKind::Launch:
    call(LaunchKernelName, ApiKind::Launch, 6 * Us, 5500);
    activity(O.Stream, O.Name, TaskKind::Kernel,
             R.around(scaled(O.MeanNs), 30000), P.Shapes[O.Shape]);
    return;
  case OpKind::Copy: {
    call(MemcpyAsyncName, ApiKind::Memcpy, 5 * Us, 7 * Us);
    TaskAttrs A;
    A.Bytes = O.Bytes;
    A.CopyKind = O.Aux;
    // Pinned copies move about 22 GB/s (22 bytes a nanosecond).
    int64_t Dur = R.around(int64_t(2 * Us + O.Bytes / 22), 30000);
    activity(O.Stream, O.Name, TaskKind::Memcpy, Dur, A);
    return;
  }
  case OpKind::Sync: {
    uint32_t Corr =
        call(StreamSynchronizeName, ApiKind::StreamSync, 3 * Us, 3 * Us);
    ApiCall &C = M.Calls.back();
    C.EndNs = std::max(C.EndNs, StreamFree[SI] + R.uniformInt(Us, 3 * Us));
    Clock = C.EndNs;
    SyncRecord S;
    S.Correlation = Corr;
    S.Kind = ApiKind::StreamSync;
    S.Device = Device;
    S.Stream = StreamIds[SI];
    M.Syncs.push_back(S);
    return;
  }
  case OpKind::Record: {
    uint32_t Corr = call(EventRecordName, ApiKind::EventRecord, 2 * Us, 3 * Us);
    Events[O.Slot] = Event{Corr, O.Stream, StreamFree[SI]};
    return;
  }
  case OpKind::Wait: {
    uint32_t Corr =
        call(StreamWaitEventName, ApiKind::StreamWaitEvent, 2 * Us, 3 * Us);
    const Event &E = Events[O.Slot];
    SyncRecord S;
    S.Correlation = Corr;
    S.Kind = ApiKind::StreamWaitEvent;
    S.Device = Device;
    S.Stream = StreamIds[SI];
    S.WaitOnStream = StreamIds[unsigned(E.Stream)];
    S.EventRecordCorrelation = E.Correlation;
    M.Syncs.push_back(S);
    StreamWait[SI] = std::max(StreamWait[SI], E.TimeNs);
    return;
  }
  case OpKind::Collective: {
    // NCCL's host side (group calls, proxy hand-off) before the launch.
    call(LaunchKernelName, ApiKind::Launch, 12 * Us, 6 * Us);
    TaskAttrs A = P.Shapes[O.Shape];
    A.Bytes = O.Bytes;
    Pending = activity(O.Stream, O.Name, TaskKind::Collective, -1, A);
    PendingStream = O.Stream;
    GpuActivity &Act = M.Activities[Pending];
    Act.Group = GroupName[unsigned(O.Group)];
    Act.GroupRanks = GroupRanks[unsigned(O.Group)];
    // The communicator's size, as the Kineto writer records it with the
    // size ("Group size"), so that both forms lower alike.
    if (A.Bytes)
      Act.GroupSize =
          Act.GroupRanks == NoId
              ? int64_t(Plan.Ranks)
              : 1 + int64_t(M.Strings.get(Act.GroupRanks).count(','));
    return;
  }
  case OpKind::Switch:
    // The step's range stays open on the main thread across hand-overs
    // (the backward pass runs inside ProfilerStep); no op's may.
    assert(llvm::all_of(Open[unsigned(Thread)],
                        [](const OpenRange &Rg) {
                          return Rg.Kind == RangeKind::Step;
                        }) &&
           "hand-over inside an op's range");
    Thread = ThreadRole(O.Aux);
    // The other thread wakes up: a condition variable and the engine's
    // queue.
    Clock += scaled(R.uniformInt(20 * Us, 60 * Us));
    return;
  case OpKind::Cpu:
    Clock += R.cpuGap(scaled(O.MeanNs));
    return;
  }
}

void RankGen::beginStep() {
  std::string Name = "ProfilerStep#" + std::to_string(FirstStep + Iteration);
  Open[0].push_back(OpenRange{Clock, M.Strings.intern(Name), RangeKind::Step});
  Clock += scaled(R.around(20 * Us, 300000));
  InStep = true;
}

void RankGen::endStep() {
  // The next step opens where this one closes, as profiler.step() does.
  OpenRange Rg = Open[0].back();
  Open[0].pop_back();
  M.Ranges.push_back(CpuRange{Rg.StartNs, Clock, Threads[0], Rg.Name, Rg.Kind});
  InStep = false;
  Pc = 0;
  ++Iteration;
}

bool RankGen::run() {
  assert(Pending == NoId && "a collective is still pending");
  while (Iteration < Plan.Iterations) {
    if (!InStep)
      beginStep();
    while (Pc < P.Ops.size()) {
      const Op &O = P.Ops[Pc++];
      exec(O);
      if (O.Kind == OpKind::Collective)
        return true;
    }
    endStep();
  }
  return false;
}

void RankGen::finishCollective(int64_t EndNs) {
  M.Activities[Pending].EndNs = EndNs;
  StreamFree[unsigned(PendingStream)] = EndNs;
  Pending = NoId;
}

/// How long a collective of \p O's size takes on \p Ranks ranks once the
/// last has arrived: NVLink within a node, InfiniBand across nodes, a
/// latency growing with the log of the ranks, and the ring algorithms'
/// factors: 2(n-1)/n of the message crosses each link in an all-reduce,
/// (n-1)/n in an all-to-all.
int64_t transferNs(const Op &O, unsigned Ranks, Rng &R) {
  uint64_t BytesPerNs = Ranks <= unsigned(DevicesPerNode) ? 130 : 22;
  unsigned Log2 = 0;
  while ((1u << Log2) < Ranks)
    ++Log2;
  uint64_t Factor = CollectiveKind(O.Aux) == CollectiveKind::AllReduce ? 2 : 1;
  uint64_t Moved = Factor * (Ranks - 1) * O.Bytes / Ranks;
  int64_t Ns = int64_t(8 * Us + 2 * Us * Log2 + Moved / BytesPerNs);
  return R.around(Ns, 30000);
}

} // namespace

bool dd::synth::ranksAreCopies(const JobPlan &Plan) {
  return Plan.IdenticalRanks && Plan.TensorParallel == 1 && Plan.Ranks > 1;
}

std::vector<TraceModel> dd::synth::generateJob(const JobPlan &Plan,
                                               bool FirstRankOnly) {
  Program P = buildProgram(Plan.Fam, Plan.Layers, Plan.Ranks,
                           /*CountOnly=*/false, Plan.TensorParallel);
  // Collectives end when the last rank reaches them; with ranks alike,
  // that is when the first does, so its trace needs no other rank beside
  // it. The group's size, which sets the transfer time, is the plan's.
  unsigned Made = FirstRankOnly && ranksAreCopies(Plan) ? 1 : Plan.Ranks;
  std::vector<RankGen> Ranks;
  Ranks.reserve(Made);
  for (unsigned I = 0; I != Made; ++I)
    Ranks.emplace_back(P, Plan, int32_t(I));
  Rng Network(deriveSeed(Plan.Seed, ~uint64_t(0)));
  for (;;) {
    unsigned Launched = 0;
    for (RankGen &G : Ranks)
      Launched += G.run();
    if (Launched == 0)
      break;
    // Every rank runs the same program, so all stopped at the same
    // collective, each on its own group of the same role: the groups of
    // consecutive ranks (tensor parallel) or of ranks T apart.
    assert(Launched == Ranks.size() && "ranks out of step");
    const Op &O = Ranks.front().pendingOp();
    unsigned T = Plan.TensorParallel;
    bool Tp = O.Group == GroupRole::TensorParallel;
    unsigned NumGroups = T == 1 ? 1 : Tp ? Plan.Ranks / T : T;
    unsigned Size = T == 1 ? Plan.Ranks : Tp ? T : Plan.Ranks / T;
    auto GroupOf = [&](unsigned R) { return T == 1 ? 0 : Tp ? R / T : R % T; };
    std::vector<int64_t> End(NumGroups, INT64_MIN);
    for (unsigned R = 0; R != Ranks.size(); ++R)
      End[GroupOf(R)] = std::max(End[GroupOf(R)], Ranks[R].pendingStart());
    for (int64_t &E : End)
      E += transferNs(O, Size, Network);
    for (unsigned R = 0; R != Ranks.size(); ++R)
      Ranks[R].finishCollective(End[GroupOf(R)]);
  }
  std::vector<TraceModel> Models;
  Models.reserve(Ranks.size());
  for (RankGen &G : Ranks)
    Models.push_back(G.take());
  return Models;
}

void dd::synth::nameCopyLane(Lane &Ln) {
  if (Ln.Kind == LaneKind::GpuStream)
    Ln.Device = rankDevice(Ln.Rank);
  else if (Ln.Kind == LaneKind::CpuThread)
    Ln.NativeId += rankPid(Ln.Rank) - rankPid(0);
}
