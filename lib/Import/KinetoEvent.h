//===- KinetoEvent.h - One Kineto event, decoded but not mapped -*- C++ -*-===//
//
// The Kineto reader works in two steps per event: the decoder walks the JSON
// object once, in whatever key order it has, and keeps the few fields and
// args the model can use (KinetoEventDecoder.cpp); the mapper then turns the
// event, by category, into a range, call, activity, sync record or memory
// event of the TraceModel (KinetoEventMapper.cpp). Keeping the two apart lets
// the decoder stay a plain JSON walk and the mapper plain semantics.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_KINETOEVENT_H
#define DAYDREAM_LIB_IMPORT_KINETOEVENT_H

#include "daydream/Import/KinetoReader.h"

#include "llvm/ADT/DenseMap.h"

#include <simdjson.h>

namespace dd::import::kineto {

/// Event categories, both spellings folded together.
enum class Category : uint8_t {
  None,           ///< no "cat": metadata, global instants, 2021 [memory]
  CpuOp,          ///< cpu_op, Operator (2021)
  UserAnnotation, ///< user_annotation
  PythonFunction, ///< python_function
  Runtime,        ///< cuda_runtime, cuda_driver, Runtime (2021)
  Kernel,         ///< kernel, Kernel (2021)
  Memcpy,         ///< gpu_memcpy, Memcpy (2021)
  Memset,         ///< gpu_memset, Memset (2021)
  CudaSync,       ///< cuda_sync
  CpuInstant,     ///< cpu_instant_event ([memory])
  Other,          ///< flows, Trace, overhead, gpu_user_annotation, ...
};

Category classifyCategory(llvm::StringRef Cat);

/// A pid or tid. Kineto writes integers; 2021 files write numeric strings
/// ("25738") and "stream 7"; pseudo-events write names ("Spans"). The
/// legacy autograd profiler (PyTorch built without Kineto, such as
/// Debian's) writes every operator as an X event with no "cat" and the pid
/// "CPU functions": LegacyCpu, process 0.
struct IdField {
  enum StateKind : uint8_t { Missing, Number, Label, LegacyCpu };
  StateKind State = Missing;
  int64_t Value = 0;
};

/// The args the mapper may need; all others are skipped unread.
struct EventArgs {
  enum Field : uint32_t {
    Correlation = 1u << 0,
    Device = 1u << 1,
    Stream = 1u << 2,
    Bytes = 1u << 3,
    Grid = 1u << 4,
    Block = 1u << 5,
    Registers = 1u << 6,
    SharedMem = 1u << 7,
    Collective = 1u << 8,
    SyncKind = 1u << 9,
    WaitOnStream = 1u << 10,
    WaitOnEventCorr = 1u << 11,
    Name = 1u << 12,
    MemBytes = 1u << 13,
    TotalAllocated = 1u << 14,
    TotalReserved = 1u << 15,
    Addr = 1u << 16,
    DeviceType = 1u << 17,
    DeviceId = 1u << 18,
    InMsgNelems = 1u << 19,
    OutMsgNelems = 1u << 20,
    Dtype = 1u << 21,
    GroupName = 1u << 22,  ///< "Process Group Name" (a string)
    GroupId = 1u << 23,    ///< "Process Group ID" (an integer, older)
    GroupRanks = 1u << 24, ///< "Process Group Ranks", e.g. "[0, 1]"
    GroupSize = 1u << 25,  ///< "Group size" (ranks of the communicator)
    InputBytes = 1u << 26, ///< a nccl:* op's "Input Dims" x "Input type"
    InputDims = 1u << 27,  ///< a CPU op's "Input Dims", as written
    InputTypes = 1u << 28, ///< a CPU op's "Input type", as written
  };
  uint32_t Present = 0;
  int64_t CorrelationV = 0, DeviceV = 0, StreamV = 0, BytesV = 0;
  int64_t GridV[3] = {0, 0, 0}, BlockV[3] = {0, 0, 0};
  int64_t RegistersV = 0, SharedMemV = 0;
  int64_t WaitOnStreamV = -1, WaitOnEventCorrV = -1;
  int64_t MemBytesV = 0, TotalAllocatedV = -1, TotalReservedV = -1;
  int64_t AddrV = 0, DeviceTypeV = 0, DeviceIdV = -1;
  int64_t InMsgNelemsV = 0, OutMsgNelemsV = 0, GroupIdV = 0, GroupSizeV = 0;
  llvm::StringRef SyncKindV, NameV, DtypeV, GroupNameV, GroupRanksV;
  /// The raw JSON of a CPU op's "Input Dims" and "Input type" arrays.
  llvm::StringRef InputDimsV, InputTypesV;
  uint64_t InputBytesV = 0; ///< inputBytes() of the two, 0 if unknown

  bool has(Field F) const { return Present & F; }
};

/// The fields of an event outside its args.
struct EventHeader {
  llvm::StringRef Name;
  bool HasName = false;
  char Ph = 0; ///< 0 if missing, '?' if not one character
  Category Cat = Category::None;
  bool HasTs = false, HasDur = false;
  int64_t TsNs = 0, DurNs = 0;
  IdField Pid, Tid;
};

/// One event's fields. Strings point into the parser's buffers and live
/// until the next document is parsed.
struct KinetoEvent : EventHeader {
  EventArgs Args;

  /// Makes this a default event again. The args, most of its bytes, are
  /// left alone when none was read, as in most events: the decoder writes
  /// an arg's value only together with its Present bit.
  void reset() {
    static_cast<EventHeader &>(*this) = EventHeader();
    if (Args.Present)
      Args = EventArgs();
  }
};

/// Decodes the event \p V into \p E. An error only for malformed JSON (a
/// wrong type is a missing field, not an error); \p KeepPython says whether
/// python_function events need their name.
simdjson::error_code decodeEvent(simdjson::ondemand::value &V, KinetoEvent &E,
                                 bool KeepPython);

/// Whether \p E is a pre-2024 collective's record_function range
/// ("nccl:all_reduce", a cpu_op or user_annotation), whose inputs are the
/// only record of the collective's size (KinetoCommOps.cpp).
inline bool isNcclOp(const EventHeader &E) {
  return E.HasName &&
         (E.Cat == Category::CpuOp || E.Cat == Category::UserAnnotation) &&
         E.Name.startswith("nccl:");
}

/// Decodes only "Input Dims" and "Input type" of a CPU op's args: their
/// text, and for a nccl:* op (\p CommBytes) the bytes inputBytes() makes
/// of them.
simdjson::error_code decodeOpInputs(simdjson::ondemand::value &V, EventArgs &A,
                                    bool CommBytes);

/// Reads \p V into \p A if \p Key is "Input Dims" or "Input type"; any
/// other key is left alone.
simdjson::error_code readOpInput(llvm::StringRef Key,
                                 simdjson::ondemand::value &V, EventArgs &A);
/// Sets InputBytes from the inputs' text, if both were read.
void addCommBytes(EventArgs &A);

/// \p Raw JSON text with whitespace outside strings dropped and one space
/// after each comma: how Kineto writes shapes on one line, whatever the
/// file's layout.
std::string normalizeJson(llvm::StringRef Raw);

/// The bytes of an op's tensor inputs from the elements of each ("Input
/// Dims" [[394241]] multiplied out, UINT64_MAX for a non-tensor []) and
/// their "Input type" (["float"]): each tensor's elements times its element
/// size, summed; non-tensor inputs count nothing. 0 if the two disagree in
/// length, a tensor's type is unknown, or no tensor is listed.
uint64_t inputBytes(llvm::ArrayRef<uint64_t> Elems,
                    llvm::ArrayRef<llvm::StringRef> Types);
/// inputBytes() of "Input Dims" and "Input type" as written; 0 if either
/// does not parse.
uint64_t inputBytesOfText(llvm::StringRef Dims, llvm::StringRef Types);

/// The key of \p F, read in place unless it holds escapes.
simdjson::error_code keyOf(simdjson::ondemand::field &F, llvm::StringRef &Key);

/// Returned by a forEachField visitor to stop the walk without an error: the
/// fields not visited are skipped, unparsed, by whatever reads on.
inline constexpr simdjson::error_code StopFields = simdjson::NUM_ERROR_CODES;

/// Calls \p Visit(Key, Value), which returns an error_code, for each field of
/// \p Obj in order, stopping at the first error (from the JSON or from
/// \p Visit) or at StopFields. Every object the reader walks goes through
/// here.
template <typename VisitFn>
simdjson::error_code forEachField(simdjson::ondemand::object &Obj,
                                  VisitFn Visit) {
  for (auto FieldOr : Obj) {
    if (simdjson::error_code Err = FieldOr.error())
      return Err;
    simdjson::ondemand::field F = FieldOr.value_unsafe();
    llvm::StringRef Key;
    if (simdjson::error_code Err = keyOf(F, Key))
      return Err;
    if (simdjson::error_code Err = Visit(Key, F.value()))
      return Err == StopFields ? simdjson::SUCCESS : Err;
  }
  return simdjson::SUCCESS;
}

/// Reads a string if \p V holds one; false otherwise, leaving \p Out alone.
/// The string points into the parser's buffers.
simdjson::error_code readString(simdjson::ondemand::value &V,
                                llvm::StringRef &Out, bool &Found);

/// Gets \p V as an object (an array) if it is one, \p Found saying whether
/// it was; a value of another type counts as absent, like every field the
/// reader reads.
simdjson::error_code readObject(simdjson::ondemand::value &V,
                                simdjson::ondemand::object &Out, bool &Found);
simdjson::error_code readArray(simdjson::ondemand::value &V,
                               simdjson::ondemand::array &Out, bool &Found);

/// Reads a pid, tid or other id: an integer, or a string holding one.
simdjson::error_code readId(simdjson::ondemand::value &V, IdField &Out);

/// Reads an integer if \p V holds one (or a numeric string); false otherwise,
/// leaving \p Out alone.
simdjson::error_code readInt(simdjson::ondemand::value &V, int64_t &Out,
                             bool &Found);

/// StringTable::intern() with a small cache in front, for event names: a
/// trace repeats a few hundred names a hundred thousand times, and a cheap
/// hash of a name's ends and one comparison cost less than the table's
/// hash of the whole name and lookup.
class NameCache {
public:
  explicit NameCache(StringTable &Strings) : Strings(Strings) {}
  StrId intern(llvm::StringRef Name);

private:
  struct Entry {
    llvm::StringRef Name; ///< the table's copy
    StrId Id = NoId;
  };
  /// Enough that the names of a step rarely evict each other.
  static constexpr unsigned SlotBits = 10;
  StringTable &Strings;
  std::vector<Entry> Entries = std::vector<Entry>(1u << SlotBits);
};

/// Turns decoded events into the model's arrays, and at the end names
/// threads and streams and moves times by the trace's base time.
class EventMapper {
public:
  EventMapper(TraceModel &Model, const KinetoOptions &Opts)
      : Model(Model), Opts(Opts), Names(Model.Strings) {}

  void add(const KinetoEvent &E);

  /// Applies what can only be applied once every event is seen: thread
  /// names (metadata may come after the events) and the base time (a
  /// top-level key that may come after traceEvents).
  void finish(llvm::Optional<int64_t> BaseTimeNs);

  /// A process group's members as distributedInfo.pg_config lists them
  /// ("[0, 2]"), for kernels that name the group but not its members.
  void addGroupMembers(llvm::StringRef Group, llvm::StringRef Ranks) {
    GroupMembers[Names.intern(Group)] = Names.intern(Ranks);
  }

private:
  void addCpuRange(const KinetoEvent &E);
  void addApiCall(const KinetoEvent &E);
  void addGpuActivity(const KinetoEvent &E);
  void addSync(const KinetoEvent &E);
  void addMemory(const KinetoEvent &E);
  void addMetadata(const KinetoEvent &E);
  /// Gives collective kernels without group or size args those of the
  /// record_param_comms op around their launch.
  void applyCommOps();
  /// Gives collective kernels that name a group but not its members the
  /// members pg_config lists.
  void applyGroupMembers();
  bool cpuThread(const KinetoEvent &E, uint32_t &Thread);
  /// An op's inputs' JSON text, interned in normalizeJson()'s form.
  StrId internJson(llvm::StringRef Raw);
  bool interval(const KinetoEvent &E, int64_t &Start, int64_t &End);

  TraceModel &Model;
  const KinetoOptions &Opts;
  NameCache Names;
  llvm::DenseMap<StrId, StrId> GroupMembers;
  /// classifyApi() by name id, which is worth remembering: runtime calls are
  /// a third of all events and use a few dozen names. 0xff: not yet known.
  std::vector<uint8_t> ApiKinds;
  int64_t LastPid = 0, LastTid = 0;
  uint32_t LastThread = NoId;
  /// thread_name metadata by (pid, tid), which is (device, stream) on GPUs.
  llvm::DenseMap<std::pair<int64_t, int64_t>, StrId> ThreadNames;

public:
  /// record_param_comms ops that recorded a group or a size.
  struct CommOp {
    uint32_t Thread = 0;
    int64_t StartNs = 0, EndNs = 0;
    StrId Group = NoId, GroupRanks = NoId;
    uint64_t Bytes = 0;
    /// A nccl:all_gather's inputs are one rank's part: times the world.
    bool PerRank = false;
  };

private:
  std::vector<CommOp> CommOps;
  /// nccl:* ops whose inputs gave a size (pre-2024 traces), kept apart
  /// from CommOps: the two kinds may nest.
  std::vector<CommOp> NcclOps;
};

} // namespace dd::import::kineto

#endif // DAYDREAM_LIB_IMPORT_KINETOEVENT_H
