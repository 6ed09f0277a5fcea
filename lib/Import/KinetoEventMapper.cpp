//===- KinetoEventMapper.cpp - Kineto events into the TraceModel ----------===//
//
// What each Kineto category means for the model: CPU ops and annotations
// become ranges (ProfilerStep#N ones iterations), runtime and driver calls
// become API calls, kernels, copies and sets become GPU activities, cuda_sync
// events become sync records, "[memory]" instants memory events. The rules
// follow ../shared/docs/trace-formats.md sections 3 and 4; each place where
// the two spellings (2021 and later) differ is handled where it matters.
//
//===----------------------------------------------------------------------===//

#include "KinetoEvent.h"

#include "daydream/Comm/CollectiveNames.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"

#include <algorithm>
#include <limits>
#include <tuple>

using namespace dd;
using namespace dd::import;
using namespace dd::import::kineto;
using llvm::StringRef;

/// \p V saturated to the range of a narrower field.
template <typename T> static T clampTo(int64_t V) {
  static_assert(sizeof(T) < sizeof(int64_t), "T must be narrower");
  if (V < int64_t(std::numeric_limits<T>::min()))
    return std::numeric_limits<T>::min();
  if (V > int64_t(std::numeric_limits<T>::max()))
    return std::numeric_limits<T>::max();
  return T(V);
}

/// CUPTI correlation ids are 32-bit; anything else is "none".
static uint32_t correlationOf(int64_t V) {
  return V > 0 && V <= int64_t(UINT32_MAX) ? uint32_t(V) : 0;
}

static bool isStepName(StringRef Name) {
  return Name.startswith("ProfilerStep#");
}

static uint8_t copyKindOf(StringRef Name) {
  if (Name.contains("HtoD"))
    return uint8_t(CopyKind::HostToDevice);
  if (Name.contains("DtoH"))
    return uint8_t(CopyKind::DeviceToHost);
  if (Name.contains("DtoD"))
    return uint8_t(CopyKind::DeviceToDevice);
  if (Name.contains("PtoP"))
    return uint8_t(CopyKind::PeerToPeer);
  return uint8_t(CopyKind::Unknown);
}

/// Mixes the length and the first, middle and last eight bytes of \p Name,
/// which tell most names of a trace apart, into a slot of 2^Bits.
static unsigned slotOf(StringRef Name, unsigned Bits) {
  constexpr uint64_t Mix = 0x9e3779b97f4a7c15; // 2^64 / golden ratio
  uint64_t H = Name.size();
  if (Name.size() >= sizeof(uint64_t)) {
    using llvm::support::endian::read64le;
    const char *Mid = Name.data() + Name.size() / 2 - sizeof(uint64_t) / 2;
    H ^= read64le(Name.data());
    H = (H * Mix) ^ read64le(Mid);
    H = (H * Mix) ^ read64le(Name.end() - sizeof(uint64_t));
  } else {
    for (char C : Name)
      H = (H << 8) | uint8_t(C);
  }
  return unsigned((H * Mix) >> (64 - Bits));
}

StrId NameCache::intern(StringRef Name) {
  Entry &E = Entries[slotOf(Name, SlotBits)];
  if (E.Id != NoId && E.Name == Name)
    return E.Id;
  E.Id = Strings.intern(Name);
  E.Name = Strings.get(E.Id);
  return E.Id;
}

void EventMapper::add(const KinetoEvent &E) {
  switch (E.Ph) {
  case 'M':
    return addMetadata(E);
  case 'i':
  case 'I':
    // [memory] instants have cat cpu_instant_event, or none in 2021 files.
    if (E.HasName && E.Name == "[memory]" &&
        (E.Cat == Category::CpuInstant || E.Cat == Category::None))
      return addMemory(E);
    ++Model.Stats.SkippedOther;
    return;
  case 'X':
    break;
  case 0:
    ++Model.Stats.MissingFields;
    return;
  default: // flows, counters, async and nestable events
    ++Model.Stats.SkippedOther;
    return;
  }
  switch (E.Cat) {
  case Category::PythonFunction:
    if (!Opts.KeepPythonFunctions) {
      ++Model.Stats.SkippedPython;
      return;
    }
    return addCpuRange(E);
  case Category::CpuOp:
  case Category::UserAnnotation:
    return addCpuRange(E);
  case Category::Runtime:
    return addApiCall(E);
  case Category::Kernel:
  case Category::Memcpy:
  case Category::Memset:
    return addGpuActivity(E);
  case Category::CudaSync:
    return addSync(E);
  case Category::None:
    // The legacy autograd profiler's operators (see IdField).
    if (E.Pid.State == IdField::LegacyCpu)
      return addCpuRange(E);
    ++Model.Stats.SkippedOther;
    return;
  case Category::CpuInstant:
  case Category::Other:
    ++Model.Stats.SkippedOther;
    return;
  }
}

/// The thread of a CPU event. False, having counted why, if the event has
/// no usable pid/tid; pseudo-events ("pid": "Spans") are skipped, not
/// missing anything.
bool EventMapper::cpuThread(const KinetoEvent &E, uint32_t &Thread) {
  if (E.Pid.State == IdField::Label || E.Tid.State == IdField::Label) {
    ++Model.Stats.SkippedOther;
    return false;
  }
  if ((E.Pid.State != IdField::Number && E.Pid.State != IdField::LegacyCpu) ||
      E.Tid.State != IdField::Number) {
    ++Model.Stats.MissingFields;
    return false;
  }
  // Consecutive events are mostly on one thread: skip the hash lookup then.
  if (LastThread == NoId || E.Pid.Value != LastPid || E.Tid.Value != LastTid) {
    LastPid = E.Pid.Value;
    LastTid = E.Tid.Value;
    LastThread = Model.thread(LastPid, LastTid);
  }
  Thread = LastThread;
  return true;
}

/// [ts, ts + dur] of an X event; false (counted) if either is missing, the
/// duration is negative or the end overflows.
bool EventMapper::interval(const KinetoEvent &E, int64_t &Start, int64_t &End) {
  if (!E.HasTs || !E.HasDur || E.DurNs < 0 ||
      __builtin_add_overflow(E.TsNs, E.DurNs, &End)) {
    ++Model.Stats.MissingFields;
    return false;
  }
  Start = E.TsNs;
  return true;
}

static uint64_t collectiveBytes(const EventArgs &Args);

/// Whether \p Raw is already in normalizeJson()'s form, as Kineto writes
/// shapes: no tab or line break, and a space exactly after each comma.
static bool isNormalJson(StringRef Raw) {
  bool InString = false;
  for (size_t I = 0; I != Raw.size(); ++I) {
    char C = Raw[I];
    if (InString) {
      if (C == '\\')
        return false; // escapes: let normalizeJson() take care
      InString = C != '"';
      continue;
    }
    if (C == '"')
      InString = true;
    else if (C == '\t' || C == '\n' || C == '\r' ||
             (C == ',' && (I + 1 == Raw.size() || Raw[I + 1] != ' ')) ||
             (C == ' ' && (I == 0 || Raw[I - 1] != ',')))
      return false;
  }
  return true;
}

StrId EventMapper::internJson(StringRef Raw) {
  if (isNormalJson(Raw))
    return Names.intern(Raw);
  return Names.intern(normalizeJson(Raw));
}

void EventMapper::addCpuRange(const KinetoEvent &E) {
  CpuRange R;
  if (!E.HasName || !interval(E, R.StartNs, R.EndNs)) {
    if (!E.HasName)
      ++Model.Stats.MissingFields;
    return;
  }
  if (!cpuThread(E, R.Thread))
    return;
  R.Name = Names.intern(E.Name);
  if (E.Args.has(EventArgs::InputDims))
    R.InputDims = internJson(E.Args.InputDimsV);
  if (E.Args.has(EventArgs::InputTypes))
    R.InputTypes = internJson(E.Args.InputTypesV);
  if (isStepName(E.Name))
    R.Kind = RangeKind::Step;
  else if (E.Cat == Category::UserAnnotation)
    R.Kind = RangeKind::Annotation;
  else if (E.Cat == Category::PythonFunction)
    R.Kind =
        E.Name.startswith("nn.Module:") ? RangeKind::Module : RangeKind::Op;
  else
    R.Kind = RangeKind::Op;
  Model.Ranges.push_back(R);
  // ProcessGroupNCCL's record of a collective: its group and sizes, for
  // kernels that do not carry them (applyCommOps()).
  if (E.Cat == Category::CpuOp && E.Args.Present &&
      E.Name == "record_param_comms") {
    CommOp Op{R.Thread, R.StartNs, R.EndNs,
              NoId,     NoId,      collectiveBytes(E.Args)};
    if (E.Args.has(EventArgs::GroupName))
      Op.Group = Names.intern(E.Args.GroupNameV);
    else if (E.Args.has(EventArgs::GroupId))
      Op.Group = Names.intern(std::to_string(E.Args.GroupIdV));
    if (E.Args.has(EventArgs::GroupRanks))
      Op.GroupRanks = Names.intern(E.Args.GroupRanksV);
    if (Op.Group != NoId || Op.GroupRanks != NoId || Op.Bytes)
      CommOps.push_back(Op);
  }
  // Before 2024, only the nccl:* range around the call says the size.
  EventArgs Inputs = E.Args;
  if (isNcclOp(E) && !Inputs.has(EventArgs::InputBytes))
    addCommBytes(Inputs); // args came before "cat": decoded in full
  if (Inputs.has(EventArgs::InputBytes) && isNcclOp(E)) {
    CommOp Op{R.Thread, R.StartNs, R.EndNs, NoId, NoId, Inputs.InputBytesV};
    Op.PerRank =
        comm::collectiveKindOfOp(E.Name) == comm::CollectiveKind::AllGather;
    if (Op.Bytes)
      NcclOps.push_back(Op);
  }
}

/// The op of \p Ops (sorted by thread and start) that holds the call \p C:
/// the one that starts last at or before it on its thread, if it ends
/// after it. Ops of one kind do not nest, so no other may hold it.
static const EventMapper::CommOp *
enclosingOp(llvm::ArrayRef<EventMapper::CommOp> Ops, const ApiCall &C) {
  auto Op = std::upper_bound(Ops.begin(), Ops.end(),
                             std::make_pair(C.Thread, C.StartNs),
                             [](const std::pair<uint32_t, int64_t> &Key,
                                const EventMapper::CommOp &O) {
                               return Key < std::make_pair(O.Thread, O.StartNs);
                             });
  if (Op == Ops.begin())
    return nullptr;
  --Op;
  if (Op->Thread != C.Thread || Op->EndNs < C.EndNs)
    return nullptr;
  return &*Op;
}

void EventMapper::applyCommOps() {
  if (CommOps.empty() && NcclOps.empty())
    return;
  for (std::vector<CommOp> *Ops : {&CommOps, &NcclOps})
    std::sort(Ops->begin(), Ops->end(), [](const CommOp &A, const CommOp &B) {
      return std::tie(A.Thread, A.StartNs) < std::tie(B.Thread, B.StartNs);
    });
  // A nccl:all_gather's input is one rank's part of the gathered output.
  int64_t World = Model.Meta.Ranks.empty() ? 0 : Model.Meta.Ranks[0].WorldSize;
  llvm::DenseMap<uint32_t, uint32_t> CallOf;
  for (uint32_t I = 0; I != Model.Calls.size(); ++I)
    if (Model.Calls[I].Correlation)
      CallOf.try_emplace(Model.Calls[I].Correlation, I);
  for (GpuActivity &A : Model.Activities) {
    if (A.Kind != TaskKind::Collective ||
        (A.Group != NoId && A.GroupRanks != NoId && A.Attrs.Bytes))
      continue;
    auto It = CallOf.find(A.Correlation);
    if (!A.Correlation || It == CallOf.end())
      continue;
    const ApiCall &C = Model.Calls[It->second];
    if (const CommOp *Op = enclosingOp(CommOps, C)) {
      if (A.Group == NoId && A.GroupRanks == NoId) {
        A.Group = Op->Group;
        A.GroupRanks = Op->GroupRanks;
      }
      if (!A.Attrs.Bytes && Op->Bytes) {
        A.Attrs.Bytes = Op->Bytes;
        A.HasAttrs = true;
      }
    }
    if (A.Attrs.Bytes)
      continue;
    const CommOp *Op = enclosingOp(NcclOps, C);
    if (!Op || (Op->PerRank && World <= 0))
      continue;
    uint64_t Times = Op->PerRank ? uint64_t(World) : 1;
    if (Op->Bytes > UINT64_MAX / Times)
      continue;
    A.Attrs.Bytes = Op->Bytes * Times;
    A.HasAttrs = true;
  }
}

void EventMapper::addApiCall(const KinetoEvent &E) {
  ApiCall C;
  if (!E.HasName || !interval(E, C.StartNs, C.EndNs)) {
    if (!E.HasName)
      ++Model.Stats.MissingFields;
    return;
  }
  if (!cpuThread(E, C.Thread))
    return;
  C.Name = Names.intern(E.Name);
  if (C.Name >= ApiKinds.size())
    ApiKinds.resize(C.Name + 1, 0xff);
  if (ApiKinds[C.Name] == 0xff)
    ApiKinds[C.Name] = uint8_t(classifyApi(E.Name));
  C.Kind = ApiKind(ApiKinds[C.Name]);
  if (E.Args.has(EventArgs::Correlation))
    C.Correlation = correlationOf(E.Args.CorrelationV);
  Model.Calls.push_back(C);
}

/// Bytes of one element of a Kineto "dtype" (c10 ScalarType names); 0 if
/// unknown.
static uint64_t dtypeBytes(StringRef Dtype) {
  return llvm::StringSwitch<uint64_t>(Dtype)
      .Cases("Double", "Long", "ComplexFloat", 8)
      .Cases("Float", "Int", "UInt32", 4)
      .Cases("Half", "BFloat16", "Short", "UInt16", 2)
      .Cases("Byte", "Char", "Bool", "Float8_e4m3fn", "Float8_e5m2", 1)
      .Case("ComplexDouble", 16)
      .Default(0);
}

/// The message size of a collective kernel from its metadata args: the
/// larger of its input and output element counts (an all-gather's output is
/// what crosses the links) times the element size. 0 if not recorded.
static uint64_t collectiveBytes(const EventArgs &Args) {
  if (!Args.has(EventArgs::Dtype))
    return 0;
  int64_t Nelems =
      std::max(Args.has(EventArgs::InMsgNelems) ? Args.InMsgNelemsV : 0,
               Args.has(EventArgs::OutMsgNelems) ? Args.OutMsgNelemsV : 0);
  uint64_t Size = dtypeBytes(Args.DtypeV);
  if (Nelems <= 0 || Size == 0 || uint64_t(Nelems) > UINT64_MAX / Size)
    return 0;
  return uint64_t(Nelems) * Size;
}

void EventMapper::addGpuActivity(const KinetoEvent &E) {
  GpuActivity A;
  if (!E.HasName || !interval(E, A.StartNs, A.EndNs)) {
    if (!E.HasName)
      ++Model.Stats.MissingFields;
    return;
  }
  // args.device / args.stream say it best; pid / tid repeat them (tid as
  // "stream 7" in 2021 files).
  const EventArgs &Args = E.Args;
  bool HasDevice =
      Args.has(EventArgs::Device) || E.Pid.State == IdField::Number;
  bool HasStream =
      Args.has(EventArgs::Stream) || E.Tid.State == IdField::Number;
  int64_t Device = Args.has(EventArgs::Device) ? Args.DeviceV : E.Pid.Value;
  int64_t Stream = Args.has(EventArgs::Stream) ? Args.StreamV : E.Tid.Value;
  if (!HasDevice || !HasStream || Device < INT32_MIN || Device > INT32_MAX) {
    if (E.Pid.State == IdField::Label)
      ++Model.Stats.SkippedOther;
    else
      ++Model.Stats.MissingFields;
    return;
  }
  // A GPU's index is never negative (a lane's device of -1 is the host's).
  if (Device < 0) {
    ++Model.Stats.InvalidFields;
    return;
  }
  A.Stream = Model.stream(int32_t(Device), Stream);
  A.Name = Names.intern(E.Name);
  if (Args.has(EventArgs::Correlation))
    A.Correlation = correlationOf(Args.CorrelationV);
  TaskAttrs &T = A.Attrs;
  if (E.Cat == Category::Kernel) {
    bool IsCollective = E.Name.startswith("nccl") ||
                        E.Name.startswith("rccl") ||
                        Args.has(EventArgs::Collective);
    A.Kind = IsCollective ? TaskKind::Collective : TaskKind::Kernel;
    for (unsigned I = 0; I != 3; ++I) {
      T.Grid[I] = clampTo<uint32_t>(Args.GridV[I]);
      T.Block[I] = clampTo<uint32_t>(Args.BlockV[I]);
    }
    T.RegistersPerThread = clampTo<uint16_t>(Args.RegistersV);
    T.SharedMemBytes = clampTo<uint32_t>(Args.SharedMemV);
    T.Bytes = collectiveBytes(Args);
    if (IsCollective && Args.has(EventArgs::GroupName))
      A.Group = Names.intern(Args.GroupNameV);
    else if (IsCollective && Args.has(EventArgs::GroupId))
      A.Group = Names.intern(std::to_string(Args.GroupIdV));
    if (IsCollective && Args.has(EventArgs::GroupRanks))
      A.GroupRanks = Names.intern(Args.GroupRanksV);
    if (IsCollective && Args.has(EventArgs::GroupSize))
      A.GroupSize = Args.GroupSizeV;
    A.HasAttrs = T.Bytes != 0 ||
                 (Args.Present & (EventArgs::Grid | EventArgs::Block |
                                  EventArgs::Registers | EventArgs::SharedMem));
  } else {
    A.Kind = E.Cat == Category::Memcpy ? TaskKind::Memcpy : TaskKind::Memset;
    if (Args.has(EventArgs::Bytes))
      T.Bytes = uint64_t(std::max<int64_t>(Args.BytesV, 0));
    if (E.Cat == Category::Memcpy)
      T.CopyKind = copyKindOf(E.Name);
    A.HasAttrs = Args.has(EventArgs::Bytes) || T.CopyKind != 0;
  }
  Model.Activities.push_back(A);
}

void EventMapper::addSync(const KinetoEvent &E) {
  if (!E.HasTs) {
    ++Model.Stats.MissingFields;
    return;
  }
  const EventArgs &Args = E.Args;
  SyncRecord S;
  S.Kind = llvm::StringSwitch<ApiKind>(Args.SyncKindV)
               .Case("Stream Sync", ApiKind::StreamSync)
               .Case("Event Sync", ApiKind::EventSync)
               .Case("Context Sync", ApiKind::DeviceSync)
               .Case("Stream Wait Event", ApiKind::StreamWaitEvent)
               .Default(ApiKind::Other);
  if (Args.has(EventArgs::Correlation))
    S.Correlation = correlationOf(Args.CorrelationV);
  if (Args.has(EventArgs::Device))
    S.Device = clampTo<int32_t>(Args.DeviceV);
  else if (E.Pid.State == IdField::Number)
    S.Device = clampTo<int32_t>(E.Pid.Value);
  if (Args.has(EventArgs::Stream))
    S.Stream = Args.StreamV;
  if (Args.has(EventArgs::WaitOnStream))
    S.WaitOnStream = Args.WaitOnStreamV;
  // -1 is how Kineto writes "no event record".
  if (Args.has(EventArgs::WaitOnEventCorr))
    S.EventRecordCorrelation = correlationOf(Args.WaitOnEventCorrV);
  Model.Syncs.push_back(S);
}

void EventMapper::addMemory(const KinetoEvent &E) {
  const EventArgs &Args = E.Args;
  if (!E.HasTs || !Args.has(EventArgs::MemBytes)) {
    ++Model.Stats.MissingFields;
    return;
  }
  MemoryRecord M;
  if (!cpuThread(E, M.Thread))
    return;
  // Neither an allocation nor a free: the IR has no such event.
  if (Args.MemBytesV == 0) {
    ++Model.Stats.InvalidFields;
    return;
  }
  M.TimeNs = E.TsNs;
  M.Bytes = Args.MemBytesV;
  // A running total cannot be negative: such a value is garbage and counts
  // as not recorded (-1), as the IR's verifier requires.
  M.TotalAllocated = Args.TotalAllocatedV < 0 ? -1 : Args.TotalAllocatedV;
  M.TotalReserved = Args.TotalReservedV < 0 ? -1 : Args.TotalReservedV;
  M.Address = uint64_t(Args.AddrV);
  // c10::DeviceType: 1 is CUDA (ROCm builds report HIP memory as CUDA too);
  // everything else, CPU (0) first, is host memory here, and so is a CUDA
  // event without a valid device id.
  if (Args.has(EventArgs::DeviceType) && Args.DeviceTypeV == 1 &&
      Args.has(EventArgs::DeviceId) && Args.DeviceIdV >= 0)
    M.Device = clampTo<int32_t>(Args.DeviceIdV);
  Model.Memory.push_back(M);
}

void EventMapper::addMetadata(const KinetoEvent &E) {
  // Only thread names are used; process names and sort indices are for
  // the viewer.
  if (!E.HasName || E.Name != "thread_name") {
    ++Model.Stats.SkippedOther;
    return;
  }
  if (E.Pid.State != IdField::Number || E.Tid.State != IdField::Number ||
      !E.Args.has(EventArgs::Name)) {
    ++Model.Stats.MissingFields;
    return;
  }
  // GPU streams are named "stream 7 ", with a trailing space.
  StringRef Name = E.Args.NameV.rtrim(' ');
  ThreadNames[{E.Pid.Value, E.Tid.Value}] = Model.Strings.intern(Name);
}

void EventMapper::applyGroupMembers() {
  if (GroupMembers.empty())
    return;
  for (GpuActivity &A : Model.Activities) {
    if (A.Group == NoId || A.GroupRanks != NoId)
      continue;
    auto It = GroupMembers.find(A.Group);
    if (It != GroupMembers.end())
      A.GroupRanks = It->second;
  }
}

void EventMapper::finish(llvm::Optional<int64_t> BaseTimeNs) {
  applyCommOps();
  applyGroupMembers();
  // GPU metadata uses (pid, tid) = (device, stream), so one map names both;
  // a name for a thread or stream no event used is dropped.
  for (ThreadInfo &T : Model.Threads) {
    auto It = ThreadNames.find({T.Pid, T.Tid});
    if (It != ThreadNames.end())
      T.Name = It->second;
  }
  for (StreamInfo &S : Model.Streams) {
    auto It = ThreadNames.find({int64_t(S.Device), S.Stream});
    if (It != ThreadNames.end())
      S.Name = It->second;
  }
  if (!BaseTimeNs)
    return;
  // ts is an offset from the base; durations are not moved. Unsigned
  // arithmetic wraps instead of overflowing into undefined behaviour on
  // garbage input.
  uint64_t Base = uint64_t(*BaseTimeNs);
  auto Move = [Base](int64_t &T) { T = int64_t(uint64_t(T) + Base); };
  for (CpuRange &R : Model.Ranges) {
    Move(R.StartNs);
    Move(R.EndNs);
  }
  for (ApiCall &C : Model.Calls) {
    Move(C.StartNs);
    Move(C.EndNs);
  }
  for (GpuActivity &A : Model.Activities) {
    Move(A.StartNs);
    Move(A.EndNs);
  }
  for (MemoryRecord &M : Model.Memory)
    Move(M.TimeNs);
}
