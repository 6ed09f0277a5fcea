//===- KinetoEventDecoder.cpp - One pass over one Kineto event object -----===//
//
// Walks an event's keys once, in the order the file has them, with simdjson's
// on-demand API: values the mapper does not need are never parsed, only
// skipped, and the args object (the bulk of a cpu_op with record_shapes) is
// skipped whole when the category, usually seen first, does not use it.
// Numbers are read from their text (KinetoNumbers.cpp) so that times stay
// exact. A value of an unexpected type counts as absent; only JSON that does
// not parse is an error.
//
//===----------------------------------------------------------------------===//

#include "KinetoEvent.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"

using namespace dd::import;
using namespace dd::import::kineto;
using llvm::StringRef;
using simdjson::error_code;
using simdjson::SUCCESS;
namespace od = simdjson::ondemand;

Category kineto::classifyCategory(StringRef Cat) {
  return llvm::StringSwitch<Category>(Cat)
      .Cases("cpu_op", "Operator", Category::CpuOp)
      .Case("user_annotation", Category::UserAnnotation)
      .Case("python_function", Category::PythonFunction)
      .Cases("cuda_runtime", "cuda_driver", "Runtime", Category::Runtime)
      .Cases("kernel", "Kernel", Category::Kernel)
      .Cases("gpu_memcpy", "Memcpy", Category::Memcpy)
      .Cases("gpu_memset", "Memset", Category::Memset)
      .Case("cuda_sync", Category::CudaSync)
      .Case("cpu_instant_event", Category::CpuInstant)
      .Default(Category::Other);
}

/// Categories whose args the mapper never reads.
static bool ignoresArgs(Category C) {
  return C == Category::CpuOp || C == Category::UserAnnotation ||
         C == Category::PythonFunction || C == Category::Other;
}

/// Categories whose events are dropped whatever their name.
static bool ignoresName(Category C, bool KeepPython) {
  return C == Category::Other || (C == Category::PythonFunction && !KeepPython);
}

/// The phases the mapper reads: complete events, instants ([memory]) and
/// metadata (thread names).
static bool usesPhase(char Ph) {
  return Ph == 'X' || Ph == 'i' || Ph == 'I' || Ph == 'M';
}

static error_code typeOf(od::value &V, od::json_type &T) {
  return V.type().get(T);
}

namespace {
enum class Shape { Number, String, Other };
} // namespace

/// What a scalar is, from the first character of its token: what
/// simdjson's type() tells, without its checks, for the fields read on
/// every event. Anything else gets those checks, so that a missing value
/// ("ph": ,) is reported where it is.
static error_code shapeOf(od::value &V, Shape &Sh) {
  std::string_view Tok = V.raw_json_token();
  char C = Tok.empty() ? '\0' : Tok[0];
  if (C == '"') {
    Sh = Shape::String;
    return SUCCESS;
  }
  if (C == '-' || (C >= '0' && C <= '9')) {
    Sh = Shape::Number;
    return SUCCESS;
  }
  Sh = Shape::Other;
  od::json_type T;
  return typeOf(V, T);
}

/// The high bit of each byte of \p Word that equals \p C. Exact up to the
/// first such byte; bytes after it may be marked wrongly (the subtraction
/// borrows), which the callers, looking for the first, do not mind.
static uint64_t bytesEqualTo(uint64_t Word, char C) {
  constexpr uint64_t Ones = ~uint64_t(0) / 0xff;
  uint64_t X = Word ^ (Ones * uint8_t(C));
  return (X - Ones) & ~X & (Ones << 7);
}

error_code kineto::keyOf(od::field &F, StringRef &Key) {
  // Keys hardly ever hold escapes: read them in place rather than have
  // simdjson copy each one out, looking for the closing quote a word at a
  // time (this runs for every key of every event). The first stage has
  // checked that every string is closed, so the scan ends, and the words
  // read past the quote lie in the document or the padding after it.
  const char *Raw = F.key().raw();
  for (size_t I = 0;; I += sizeof(uint64_t)) {
    uint64_t Word = llvm::support::endian::read64le(Raw + I);
    uint64_t Stops = bytesEqualTo(Word, '"') | bytesEqualTo(Word, '\\');
    if (!Stops)
      continue;
    size_t End = I + llvm::countTrailingZeros(Stops) / 8;
    if (Raw[End] == '\\')
      break;
    Key = StringRef(Raw, End);
    return SUCCESS;
  }
  std::string_view S;
  if (error_code Err = F.unescaped_key().get(S))
    return Err;
  Key = StringRef(S.data(), S.size());
  return SUCCESS;
}

namespace {
enum class EventKey { Other, Ph, Cat, Name, Ts, Dur, Pid, Tid, Args };
} // namespace

/// The event keys the decoder reads, told apart by length and characters:
/// this runs for every key of every event.
static EventKey classifyKey(StringRef K) {
  auto Is = [&K](const char(&S)[4]) {
    return K[0] == S[0] && K[1] == S[1] && K[2] == S[2];
  };
  switch (K.size()) {
  case 2:
    if (K[0] == 'p' && K[1] == 'h')
      return EventKey::Ph;
    if (K[0] == 't' && K[1] == 's')
      return EventKey::Ts;
    return EventKey::Other;
  case 3:
    if (Is("cat"))
      return EventKey::Cat;
    if (Is("dur"))
      return EventKey::Dur;
    if (Is("pid"))
      return EventKey::Pid;
    if (Is("tid"))
      return EventKey::Tid;
    return EventKey::Other;
  case 4:
    if (K == "name")
      return EventKey::Name;
    if (K == "args")
      return EventKey::Args;
    return EventKey::Other;
  default:
    return EventKey::Other;
  }
}

error_code kineto::readInt(od::value &V, int64_t &Out, bool &Found) {
  Found = false;
  llvm::Optional<int64_t> N;
  Shape Sh;
  if (error_code Err = shapeOf(V, Sh))
    return Err;
  switch (Sh) {
  case Shape::Number:
    N = parseIntegerToken(V.raw_json_token());
    break;
  case Shape::String: {
    std::string_view S;
    if (error_code Err = V.get_string().get(S))
      return Err;
    N = parseIntegerToken(StringRef(S.data(), S.size()));
    break;
  }
  case Shape::Other:
    break;
  }
  if (N) {
    Out = *N;
    Found = true;
  }
  return SUCCESS;
}

error_code kineto::readId(od::value &V, IdField &Out) {
  Out = IdField();
  Shape Sh;
  if (error_code Err = shapeOf(V, Sh))
    return Err;
  if (Sh == Shape::Number) {
    if (llvm::Optional<int64_t> N = parseIntegerToken(V.raw_json_token()))
      Out = {IdField::Number, *N};
    return SUCCESS;
  }
  if (Sh != Shape::String)
    return SUCCESS;
  std::string_view SV;
  if (error_code Err = V.get_string().get(SV))
    return Err;
  StringRef S(SV.data(), SV.size());
  // 2021 traces name GPU streams "stream 7" in tid.
  S.consume_front("stream ");
  if (llvm::Optional<int64_t> N = parseIntegerToken(S))
    Out = {IdField::Number, *N};
  else if (S == "CPU functions")
    Out = {IdField::LegacyCpu, 0};
  else
    Out = {IdField::Label, 0};
  return SUCCESS;
}

error_code kineto::readObject(od::value &V, od::object &Out, bool &Found) {
  Found = false;
  od::json_type T;
  if (error_code Err = typeOf(V, T))
    return Err;
  if (T != od::json_type::object)
    return SUCCESS;
  Found = true;
  return V.get_object().get(Out);
}

error_code kineto::readArray(od::value &V, od::array &Out, bool &Found) {
  Found = false;
  od::json_type T;
  if (error_code Err = typeOf(V, T))
    return Err;
  if (T != od::json_type::array)
    return SUCCESS;
  Found = true;
  return V.get_array().get(Out);
}

error_code kineto::readString(od::value &V, StringRef &Out, bool &Found) {
  Found = false;
  Shape Sh;
  if (error_code Err = shapeOf(V, Sh))
    return Err;
  if (Sh != Shape::String)
    return SUCCESS;
  std::string_view S;
  if (error_code Err = V.get_string().get(S))
    return Err;
  Out = StringRef(S.data(), S.size());
  Found = true;
  return SUCCESS;
}

/// Reads a time in microseconds as nanoseconds. A number that does not fit
/// in int64 nanoseconds, or is not valid JSON (simdjson checks only the
/// numbers it is asked to parse), counts as absent like any other type.
static error_code readTime(od::value &V, int64_t &Out, bool &Found) {
  Found = false;
  Shape Sh;
  if (error_code Err = shapeOf(V, Sh))
    return Err;
  if (Sh != Shape::Number)
    return SUCCESS;
  std::string_view Tok = V.raw_json_token();
  if (llvm::Optional<int64_t> Ns =
          parseMicrosAsNanos(StringRef(Tok.data(), Tok.size()))) {
    Out = *Ns;
    Found = true;
  }
  return SUCCESS;
}

/// Reads up to three integers of an [x, y, z] array.
static error_code readDim3(od::value &V, int64_t (&Out)[3], bool &Found) {
  od::array A;
  if (error_code Err = readArray(V, A, Found); Err || !Found)
    return Err;
  unsigned I = 0;
  for (auto ElOr : A) {
    if (error_code Err = ElOr.error())
      return Err;
    od::value El = ElOr.value_unsafe();
    bool Got = false;
    if (I < 3) {
      if (error_code Err = readInt(El, Out[I], Got))
        return Err;
    }
    ++I;
  }
  Found = I >= 1;
  return SUCCESS;
}

/// The integer args the mapper reads, and where they go.
struct IntArg {
  StringRef Key;
  int64_t EventArgs::*Member;
  EventArgs::Field Bit;
};
static const IntArg IntArgs[] = {
    {"correlation", &EventArgs::CorrelationV, EventArgs::Correlation},
    {"device", &EventArgs::DeviceV, EventArgs::Device},
    {"stream", &EventArgs::StreamV, EventArgs::Stream},
    {"bytes", &EventArgs::BytesV, EventArgs::Bytes},
    {"registers per thread", &EventArgs::RegistersV, EventArgs::Registers},
    {"shared memory", &EventArgs::SharedMemV, EventArgs::SharedMem},
    {"wait_on_stream", &EventArgs::WaitOnStreamV, EventArgs::WaitOnStream},
    {"wait_on_cuda_event_record_corr_id", &EventArgs::WaitOnEventCorrV,
     EventArgs::WaitOnEventCorr},
    {"Bytes", &EventArgs::MemBytesV, EventArgs::MemBytes},
    {"Total Allocated", &EventArgs::TotalAllocatedV, EventArgs::TotalAllocated},
    {"Total Reserved", &EventArgs::TotalReservedV, EventArgs::TotalReserved},
    {"Addr", &EventArgs::AddrV, EventArgs::Addr},
    {"Device Type", &EventArgs::DeviceTypeV, EventArgs::DeviceType},
    {"Device Id", &EventArgs::DeviceIdV, EventArgs::DeviceId},
    {"In msg nelems", &EventArgs::InMsgNelemsV, EventArgs::InMsgNelems},
    {"Out msg nelems", &EventArgs::OutMsgNelemsV, EventArgs::OutMsgNelems},
    {"Process Group ID", &EventArgs::GroupIdV, EventArgs::GroupId},
    {"Group size", &EventArgs::GroupSizeV, EventArgs::GroupSize},
};

static const IntArg *findIntArg(StringRef Key) {
  // StringRef equality compares lengths first, so a miss costs little.
  for (const IntArg &A : IntArgs)
    if (A.Key == Key)
      return &A;
  return nullptr;
}

static error_code decodeArgs(od::value &V, EventArgs &A) {
  od::object Obj;
  bool IsObject = false;
  if (error_code Err = readObject(V, Obj, IsObject); Err || !IsObject)
    return Err;
  return forEachField(Obj, [&A](StringRef Key, od::value &FV) -> error_code {
    bool Found = false;
    if (const IntArg *Arg = findIntArg(Key)) {
      if (error_code Err = readInt(FV, A.*(Arg->Member), Found))
        return Err;
      if (Found)
        A.Present |= Arg->Bit;
      return SUCCESS;
    }
    if (Key == "grid" || Key == "block") {
      bool IsGrid = Key == "grid";
      if (error_code Err = readDim3(FV, IsGrid ? A.GridV : A.BlockV, Found))
        return Err;
      if (Found)
        A.Present |= IsGrid ? EventArgs::Grid : EventArgs::Block;
    } else if (Key == "Input Dims" || Key == "Input type") {
      return readOpInput(Key, FV, A);
    } else if (Key == "Collective name") {
      A.Present |= EventArgs::Collective;
    } else if (Key == "Process Group Name" || Key == "Process Group Ranks") {
      bool IsName = Key == "Process Group Name";
      if (error_code Err =
              readString(FV, IsName ? A.GroupNameV : A.GroupRanksV, Found))
        return Err;
      if (Found)
        A.Present |= IsName ? EventArgs::GroupName : EventArgs::GroupRanks;
    } else if (Key == "cuda_sync_kind" || Key == "name" || Key == "dtype") {
      StringRef &Out = Key == "cuda_sync_kind" ? A.SyncKindV
                       : Key == "name"         ? A.NameV
                                               : A.DtypeV;
      if (error_code Err = readString(FV, Out, Found))
        return Err;
      if (Found)
        A.Present |= Key == "cuda_sync_kind" ? EventArgs::SyncKind
                     : Key == "name"         ? EventArgs::Name
                                             : EventArgs::Dtype;
    }
    return SUCCESS;
  });
}

error_code kineto::decodeEvent(od::value &V, KinetoEvent &E, bool KeepPython) {
  E.reset();
  od::object Obj;
  if (error_code Err = V.get_object().get(Obj))
    return Err;
  bool HasCat = false;
  return forEachField(Obj, [&](StringRef Key, od::value &FV) -> error_code {
    bool Found = false;
    switch (classifyKey(Key)) {
    case EventKey::Ph: {
      StringRef Ph;
      error_code Err = readString(FV, Ph, Found);
      if (Found)
        E.Ph = Ph.size() == 1 ? Ph[0] : '?';
      // Flows, counters and async events are skipped whatever else they
      // hold, and flows alone are a third of a trace's events.
      if (!Err && Found && !usesPhase(E.Ph))
        return StopFields;
      return Err;
    }
    case EventKey::Cat: {
      StringRef Cat;
      error_code Err = readString(FV, Cat, Found);
      if (Found) {
        E.Cat = classifyCategory(Cat);
        HasCat = true;
      }
      return Err;
    }
    case EventKey::Name:
      // Usually after "cat": a flow's or a dropped Python frame's name is
      // then never unescaped.
      if (!(HasCat && ignoresName(E.Cat, KeepPython)))
        return readString(FV, E.Name, E.HasName);
      return SUCCESS;
    case EventKey::Ts:
      return readTime(FV, E.TsNs, E.HasTs);
    case EventKey::Dur:
      return readTime(FV, E.DurNs, E.HasDur);
    case EventKey::Pid:
      return readId(FV, E.Pid);
    case EventKey::Tid:
      return readId(FV, E.Tid);
    case EventKey::Args:
      // Args before "cat" are decoded in full: the category is unknown yet.
      // Of CPU ops, only record_param_comms has args the mapper reads (a
      // collective's group and sizes), when its name came first, as
      // Kineto writes it.
      if (!(HasCat && ignoresArgs(E.Cat)) ||
          (E.Cat == Category::CpuOp && E.HasName &&
           E.Name == "record_param_comms"))
        return decodeArgs(FV, E.Args);
      // Of other ops and annotations, only their inputs' shapes and types
      // (and from those, pre-2024 collectives' sizes).
      if (HasCat &&
          (E.Cat == Category::CpuOp || E.Cat == Category::UserAnnotation))
        return decodeOpInputs(FV, E.Args, isNcclOp(E));
      return SUCCESS;
    case EventKey::Other:
      return SUCCESS;
    }
    return SUCCESS;
  });
}
