//===- KinetoReader.cpp - PyTorch profiler trace front-end ----------------===//
//
// The document-level walk of a Kineto trace: the top-level object (or bare
// event array), its metadata keys in any order, the one pass over
// traceEvents, progress reports, and errors that name the input and the byte
// where the JSON went wrong. Each event is decoded and mapped by
// KinetoEventDecoder.cpp and KinetoEventMapper.cpp.
//
// The walk is single-pass on purpose: simdjson's on-demand API reads the
// document forward only, and the keys whose values apply to every event
// (baseTimeNanoseconds) may come after traceEvents, so they are applied at
// the end rather than by parsing twice.
//
//===----------------------------------------------------------------------===//

#include "KinetoChunks.h"
#include "KinetoEvent.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/ConvertUTF.h"

#include <cstring>

using namespace dd;
using namespace dd::import;
using namespace dd::import::kineto;
using llvm::Expected;
using llvm::StringRef;
using simdjson::error_code;
using simdjson::SUCCESS;
namespace od = simdjson::ondemand;

static_assert(InputPadding >= simdjson::SIMDJSON_PADDING,
              "InputFile must pad as much as simdjson reads past the end");

static llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// Where in \p Bytes the error \p Err lies, for the errors simdjson reports
/// without a position: those of its first stage (bad UTF-8, a string that
/// never ends or holds a control character) and an unbalanced root, which
/// the on-demand API notices before reading anything. A scalar scan, but
/// only once the parse has failed. May refine \p Err: an unbalanced root
/// followed by more content is trailing content, not a truncated file.
static size_t locateError(StringRef Bytes, error_code &Err) {
  const auto *Begin = reinterpret_cast<const llvm::UTF8 *>(Bytes.data());
  if (Err == simdjson::UTF8_ERROR) {
    const llvm::UTF8 *P = Begin;
    llvm::isLegalUTF8String(&P, Begin + Bytes.size());
    return P - Begin;
  }
  size_t Open = 0;
  bool InString = false;
  int64_t Depth = 0;
  bool SeenRoot = false;
  for (size_t I = 0, N = Bytes.size(); I < N; ++I) {
    char C = Bytes[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
      else if (uint8_t(C) < 0x20 && Err == simdjson::UNESCAPED_CHARS)
        return I;
      continue;
    }
    if (C == ' ' || C == '\t' || C == '\r' || C == '\n')
      continue;
    if (SeenRoot && Depth == 0 && Err == simdjson::INCOMPLETE_ARRAY_OR_OBJECT) {
      Err = simdjson::TRAILING_CONTENT;
      return I;
    }
    SeenRoot = true;
    if (C == '"') {
      InString = true;
      Open = I;
    } else if (C == '{' || C == '[') {
      ++Depth;
    } else if (C == '}' || C == ']') {
      --Depth;
    }
  }
  if (InString)
    return Open;
  // Truncated: the document ends before its brackets close.
  return Bytes.rtrim(" \t\r\n").size();
}

namespace {

/// One parse of one document into one model.
class KinetoWalker {
public:
  KinetoWalker(const InputFile &In, const KinetoOptions &Opts,
               ProgressFn Progress, TraceModel &Model)
      : In(In), Opts(Opts), Progress(Progress), Model(Model),
        Mapper(Model, Opts) {}

  /// Parses the trace in pieces (KinetoChunks.h). False, with the model
  /// half filled, when it must be parsed whole instead: it is small, its
  /// cuts are not between events, or it is malformed.
  bool runInPieces();

  /// Parses the trace as one document, with errors that say where.
  llvm::Error run();

private:
  error_code walkTop(od::document &Doc, bool &HasEvents);
  error_code walkEvents(od::array &Events);
  error_code readDevices(od::value &V);
  error_code readDistributedInfo(od::value &V);
  error_code readGroupConfig(od::value &V);
  error_code walkPiece(od::parser &Parser, llvm::StringRef Events);
  void reserveLikeStart(size_t Done, size_t Total);
  void reportProgress(od::document &Doc);
  llvm::Error malformed(od::document &Doc, error_code Err);

  const InputFile &In;
  const KinetoOptions &Opts;
  ProgressFn Progress;
  TraceModel &Model;
  EventMapper Mapper;
  KinetoEvent Event; ///< one for all events, reset by the decoder
  od::document *Doc = nullptr;
  /// Where the document being walked starts, and at what offset of the
  /// input: a piece is a copy of part of it.
  const char *DocStart = nullptr;
  uint64_t DocOffset = 0;
  /// In the last document of a parse in pieces: where its traceEvents array
  /// must open, and whether it did.
  const char *ExpectedEvents = nullptr;
  bool SawExpectedEvents = false;
  /// The copy of the piece being parsed, with simdjson's padding.
  std::vector<char> PieceBuffer;
  llvm::Optional<int64_t> BaseTimeNs;
  uint64_t NextProgress = ProgressStep;
  static constexpr uint64_t ProgressStep = 16 << 20;
};

} // namespace

llvm::Error KinetoWalker::malformed(od::document &Doc, error_code Err) {
  StringRef Bytes = In.text();
  size_t Offset = Bytes.size();
  const char *Loc = nullptr;
  if (!Doc.current_location().get(Loc) && Loc >= Bytes.data() &&
      Loc <= Bytes.end())
    Offset = Loc - Bytes.data();
  // The root's brackets are checked before anything is read, so simdjson
  // points at byte 0 for them.
  if (Err == simdjson::INCOMPLETE_ARRAY_OR_OBJECT && Offset == 0)
    Offset = locateError(Bytes, Err);
  return makeError(In.Name + ": malformed JSON at byte " + llvm::Twine(Offset) +
                   ": " + simdjson::error_message(Err));
}

void KinetoWalker::reportProgress(od::document &Doc) {
  const char *Loc = nullptr;
  if (!DocStart)
    return;
  if (Doc.current_location().get(Loc))
    return;
  uint64_t Done = DocOffset + (Loc - DocStart);
  const size_t Total = In.expectedSize();
  if (Done < NextProgress || Done > Total)
    return;
  Progress(Done, Total);
  NextProgress = Done + ProgressStep;
}

error_code KinetoWalker::walkEvents(od::array &Events) {
  for (auto ElOr : Events) {
    if (error_code Err = ElOr.error())
      return Err;
    od::value V = ElOr.value_unsafe();
    ++Model.Stats.Events;
    od::json_type T;
    if (error_code Err = V.type().get(T))
      return Err;
    if (T != od::json_type::object) {
      ++Model.Stats.MissingFields;
      continue;
    }
    if (error_code Err = decodeEvent(V, Event, Opts.KeepPythonFunctions))
      return Err;
    Mapper.add(Event);
    // Checking the position costs little, but not nothing: every 4096th.
    if (Progress && (Model.Stats.Events & 4095) == 0)
      reportProgress(*Doc);
  }
  return SUCCESS;
}

/// Calls \p Each(object) for every object in the array \p V (other elements
/// are skipped); \p IsArray says whether \p V was an array at all.
template <typename EachFn>
static error_code forEachObject(od::value &V, bool &IsArray, EachFn Each) {
  od::array A;
  if (error_code Err = readArray(V, A, IsArray); Err || !IsArray)
    return Err;
  for (auto ElOr : A) {
    if (error_code Err = ElOr.error())
      return Err;
    od::value El = ElOr.value_unsafe();
    od::object Obj;
    bool Found = false;
    if (error_code Err = readObject(El, Obj, Found))
      return Err;
    if (!Found)
      continue;
    if (error_code Err = Each(Obj))
      return Err;
  }
  return SUCCESS;
}

error_code KinetoWalker::readDevices(od::value &V) {
  std::vector<Device> Devices;
  llvm::SmallDenseSet<int64_t, 8> Ids; // wider than the ids: see DenseMapInfo
  bool IsArray = false;
  error_code Err = forEachObject(V, IsArray, [&](od::object &Obj) {
    Device D;
    bool HasId = false;
    error_code Err =
        forEachField(Obj, [&](StringRef Key, od::value &FV) -> error_code {
          bool Found = false;
          if (Key == "name") {
            StringRef Name;
            error_code Err = readString(FV, Name, Found);
            if (Found)
              D.Name = Name.str();
            return Err;
          }
          if (Key != "id" && Key != "numSms" && Key != "totalGlobalMem")
            return SUCCESS;
          int64_t N = 0;
          if (error_code Err = readInt(FV, N, Found))
            return Err;
          if (!Found)
            return SUCCESS;
          if (Key == "id") {
            D.Index = int32_t(std::clamp<int64_t>(N, INT32_MIN, INT32_MAX));
            HasId = D.Index >= 0 && D.Index == N;
          } else if (Key == "numSms")
            D.SmCount = int32_t(std::clamp<int64_t>(N, 0, INT32_MAX));
          else
            D.MemoryBytes = uint64_t(std::max<int64_t>(N, 0));
          return SUCCESS;
        });
    // A device is known by its id: one without (or with one that is no
    // CUDA ordinal), or a second with the same id, describes nothing the
    // kernels can name, and is counted as an invalid field.
    if (!HasId || !Ids.insert(D.Index).second)
      ++Model.Stats.InvalidFields;
    else
      Devices.push_back(std::move(D));
    return Err;
  });
  if (!Err && IsArray)
    Model.Meta.Devices = std::move(Devices);
  return Err;
}

error_code KinetoWalker::readDistributedInfo(od::value &V) {
  od::object Obj;
  bool IsObject = false;
  if (error_code Err = readObject(V, Obj, IsObject); Err || !IsObject)
    return Err;
  int64_t Rank = 0, WorldSize = 0;
  bool HasRank = false, HasWorld = false;
  error_code Err =
      forEachField(Obj, [&](StringRef Key, od::value &FV) -> error_code {
        bool Found = false;
        if (Key == "rank") {
          error_code Err = readInt(FV, Rank, Found);
          HasRank |= Found;
          return Err;
        }
        if (Key == "world_size") {
          error_code Err = readInt(FV, WorldSize, Found);
          HasWorld |= Found;
          return Err;
        }
        if (Key == "pg_config")
          return readGroupConfig(FV);
        return SUCCESS;
      });
  if (Err)
    return Err;
  // Some traces have a rank and no world size; 0 says "not known". A rank
  // that is no rank (negative, past 32 bits) is dropped and a world size
  // that is none (negative, 0, past 32 bits) is not known, each counted as
  // an invalid field; a rank outside its world is the lowering's error
  // (checkRanks()).
  Model.Meta.Ranks.clear();
  if (HasRank && (Rank < 0 || Rank > INT32_MAX)) {
    ++Model.Stats.InvalidFields;
    HasRank = false;
  }
  if (HasRank && (WorldSize < 0 || WorldSize > INT32_MAX ||
                  (HasWorld && WorldSize == 0))) {
    ++Model.Stats.InvalidFields;
    WorldSize = 0;
  }
  if (HasRank)
    Model.Meta.Ranks.push_back(RankInfo{int32_t(Rank), int32_t(WorldSize), ""});
  return SUCCESS;
}

/// distributedInfo.pg_config: [{"pg_name": "0", "ranks": [0, 1], ...}]. Each
/// group's members, written as the kernels' "Process Group Ranks" are, go
/// to the mapper; entries without a name or a list of ranks are skipped.
error_code KinetoWalker::readGroupConfig(od::value &V) {
  bool IsArray = false;
  return forEachObject(V, IsArray, [&](od::object &Obj) {
    std::string Name, Ranks;
    bool HasRanks = false;
    error_code Err =
        forEachField(Obj, [&](StringRef Key, od::value &FV) -> error_code {
          bool Got = false;
          if (Key == "pg_name") {
            StringRef S;
            if (error_code Err = readString(FV, S, Got))
              return Err;
            if (Got)
              Name = S.str();
            return SUCCESS;
          }
          if (Key != "ranks")
            return SUCCESS;
          od::array RA;
          if (error_code Err = readArray(FV, RA, Got); Err || !Got)
            return Err;
          HasRanks = true;
          Ranks = "[";
          for (auto ROr : RA) {
            if (error_code Err = ROr.error())
              return Err;
            od::value RV = ROr.value_unsafe();
            int64_t R = 0;
            bool IsInt = false;
            if (error_code Err = readInt(RV, R, IsInt))
              return Err;
            if (!IsInt) { // not a rank: let the job's check say so
              Ranks += Ranks.size() > 1 ? ", ?" : "?";
              continue;
            }
            Ranks += (Ranks.size() > 1 ? ", " : "") + std::to_string(R);
          }
          Ranks += "]";
          return SUCCESS;
        });
    if (!Err && !Name.empty() && HasRanks)
      Mapper.addGroupMembers(Name, Ranks);
    return Err;
  });
}

/// Walks the root: a bare array of events, or an object whose traceEvents
/// is one. \p HasEvents tells whether either was found.
error_code KinetoWalker::walkTop(od::document &Doc, bool &HasEvents) {
  HasEvents = false;
  od::json_type T;
  if (error_code Err = Doc.type().get(T))
    return Err;
  if (T == od::json_type::array) {
    od::array Events;
    if (error_code Err = Doc.get_array().get(Events))
      return Err;
    HasEvents = true;
    return walkEvents(Events);
  }
  if (T != od::json_type::object)
    return SUCCESS;
  od::object Root;
  if (error_code Err = Doc.get_object().get(Root))
    return Err;
  return forEachField(Root, [&](StringRef Key, od::value &V) -> error_code {
    if (Key == "traceEvents") {
      // Only an array opens at ExpectedEvents (a '[' in the text).
      if (ExpectedEvents && V.raw_json_token().data() == ExpectedEvents)
        SawExpectedEvents = true;
      od::array Events;
      bool IsArray = false;
      if (error_code Err = readArray(V, Events, IsArray); Err || !IsArray)
        return Err;
      HasEvents = true;
      return walkEvents(Events);
    }
    if (Key == "deviceProperties")
      return readDevices(V);
    if (Key == "distributedInfo")
      return readDistributedInfo(V);
    if (Key == "baseTimeNanoseconds") {
      int64_t Base = 0;
      bool Found = false;
      error_code Err = readInt(V, Base, Found);
      if (Found)
        BaseTimeNs = Base;
      return Err;
    }
    return SUCCESS;
  });
}

llvm::Error KinetoWalker::run() {
  StringRef Bytes = In.text();
  // A UTF-8 byte order mark (editors on Windows write one) is not JSON;
  // offsets in errors still count from the file's first byte.
  const size_t Bom = Bytes.startswith("\xEF\xBB\xBF") ? 3 : 0;
  Bytes = Bytes.drop_front(Bom);
  if (Bytes.find_first_not_of(" \t\r\n") == StringRef::npos)
    return makeError(In.Name + ": empty trace");
  od::parser Parser;
  od::document Doc;
  size_t Capacity = Bytes.size() + InputPadding;
  if (error_code Err =
          Parser.iterate(Bytes.data(), Bytes.size(), Capacity).get(Doc)) {
    // Not the input's fault: simdjson indexes with 32-bit offsets.
    if (Err == simdjson::CAPACITY || Err == simdjson::MEMALLOC)
      return makeError(In.Name + ": cannot parse " + llvm::Twine(Bytes.size()) +
                       " bytes of JSON: " + simdjson::error_message(Err));
    size_t Offset = Bom + locateError(Bytes, Err);
    return makeError(In.Name + ": malformed JSON at byte " +
                     llvm::Twine(Offset) + ": " + simdjson::error_message(Err));
  }
  this->Doc = &Doc;
  DocStart = Bytes.data();
  bool HasEvents = false;
  if (error_code Err = walkTop(Doc, HasEvents))
    return malformed(Doc, Err);
  if (!HasEvents)
    return makeError(In.Name + ": not a Kineto trace (no traceEvents array)");
  // simdjson 3.0 has no document::at_end(); a location after the root value
  // is the same thing.
  const char *After = nullptr;
  if (!Doc.current_location().get(After))
    return malformed(Doc, simdjson::TRAILING_CONTENT);
  if (Model.Stats.Events == 0)
    return makeError(In.Name + ": empty trace (no events)");
  Mapper.finish(BaseTimeNs);
  Model.Meta.SourceFormat = "kineto";
  if (Progress)
    Progress(Bytes.size(), Bytes.size());
  return llvm::Error::success();
}

/// Copies \p Parts into \p Buffer, followed by simdjson's padding, and
/// returns the length without it.
static size_t fill(std::vector<char> &Buffer,
                   std::initializer_list<StringRef> Parts) {
  size_t Size = 0;
  for (StringRef P : Parts)
    Size += P.size();
  Buffer.resize(Size + simdjson::SIMDJSON_PADDING);
  char *Out = Buffer.data();
  for (StringRef P : Parts) {
    std::memcpy(Out, P.data(), P.size());
    Out += P.size();
  }
  std::memset(Out, ' ', simdjson::SIMDJSON_PADDING);
  return Size;
}

/// Walks the events in \p Events, a slice of the traceEvents array from one
/// event to another, as the document "[" + Events + "]".
error_code KinetoWalker::walkPiece(od::parser &Parser, StringRef Events) {
  size_t Size = fill(PieceBuffer, {"[", Events, "]"});
  od::document PieceDoc;
  if (error_code Err =
          Parser.iterate(PieceBuffer.data(), Size, PieceBuffer.size())
              .get(PieceDoc))
    return Err;
  Doc = &PieceDoc;
  DocStart = PieceBuffer.data() + 1;
  DocOffset = Events.data() - In.Bytes.data();
  ++Model.Stats.Pieces;
  od::array Array;
  if (error_code Err = PieceDoc.get_array().get(Array))
    return Err;
  if (error_code Err = walkEvents(Array))
    return Err;
  // The piece must end where its array does.
  const char *After = nullptr;
  if (!PieceDoc.current_location().get(After))
    return simdjson::TRAILING_CONTENT;
  return SUCCESS;
}

/// How much of a trace's start reserveLikeStart() looks at: enough events
/// that their mix is the whole trace's, whatever the size of the pieces.
static constexpr size_t ReserveSampleBytes = size_t(1) << 20;

/// Reserves the model's arrays for a whole trace of \p Total bytes that is
/// like its first \p Done bytes, with a margin. The arrays would otherwise
/// double their way up, touching twice the memory they end with; room
/// reserved and never used costs nothing, as the kernel maps pages only when
/// they are first written.
void KinetoWalker::reserveLikeStart(size_t Done, size_t Total) {
  auto Reserve = [&](auto &Array) {
    Array.reserve(Array.size() * (Total / Done + 1) * 5 / 4);
  };
  Reserve(Model.Ranges);
  Reserve(Model.Calls);
  Reserve(Model.Activities);
  Reserve(Model.Syncs);
  Reserve(Model.Memory);
}

/// The cut findEventBoundary(Bytes, From) gives on all of \p In's bytes,
/// waiting, where they are still arriving, until enough have to tell. A cut
/// found among the first bytes is the one all of them give: a "}" that
/// was not a cut for want of the bytes after it is the last "}" there.
static size_t nextCut(const InputFile &In, size_t From, size_t Piece) {
  for (size_t Want = From + Piece / 4;; Want += Piece) {
    StringRef Bytes = In.arrived(Want);
    size_t Cut = findEventBoundary(Bytes, From);
    if (Cut != StringRef::npos || Bytes.size() < Want)
      return Cut;
  }
}

bool KinetoWalker::runInPieces() {
  size_t Piece = Opts.PieceBytes;
  if (Piece == 0 || In.expectedSize() / 2 < Piece)
    return false;
  // The array opens where the first "traceEvents" key is. Among bytes
  // still arriving, a start found is the one all of them give (it is the
  // first key); none found may be for want of the rest.
  size_t Open = StringRef::npos;
  for (size_t Want = Piece;; Want *= 2) {
    StringRef Bytes = In.arrived(Want);
    Open = findEventsArray(Bytes);
    if (Open != StringRef::npos || Bytes.size() < Want)
      break;
  }
  if (Open == StringRef::npos)
    return false;
  od::parser Parser;
  size_t Next = Open + 1; // the first event not walked yet
  bool Reserved = false;
  for (;;) {
    size_t Cut = nextCut(In, Next + Piece, Piece);
    if (Cut == StringRef::npos)
      break;
    if (walkPiece(Parser, In.arrived(Cut).slice(Next, Cut)))
      return false;
    if (!Reserved && Cut >= ReserveSampleBytes) {
      reserveLikeStart(Cut, In.expectedSize());
      Reserved = true;
    }
    Next = Cut + 1;
  }
  StringRef Bytes = In.text();
  // The rest is the document with the events walked so far cut out: its
  // other keys, wherever they are, and the last events.
  size_t Size =
      fill(PieceBuffer, {Bytes.take_front(Open + 1), Bytes.drop_front(Next)});
  od::document Rest;
  if (Parser.iterate(PieceBuffer.data(), Size, PieceBuffer.size()).get(Rest))
    return false;
  ++Model.Stats.Pieces;
  Doc = &Rest;
  DocStart = nullptr; // no progress reports from here on
  ExpectedEvents = PieceBuffer.data() + Open;
  bool HasEvents = false;
  const char *After = nullptr;
  if (walkTop(Rest, HasEvents) || !SawExpectedEvents ||
      !Rest.current_location().get(After) || Model.Stats.Events == 0)
    return false;
  Mapper.finish(BaseTimeNs);
  Model.Meta.SourceFormat = "kineto";
  if (Progress)
    Progress(Bytes.size(), Bytes.size());
  return true;
}

Expected<TraceModel> dd::import::readKinetoTrace(const InputFile &In,
                                                 const KinetoOptions &Opts,
                                                 ProgressFn Progress) {
  {
    TraceModel Model;
    KinetoWalker Walker(In, Opts, Progress, Model);
    if (Walker.runInPieces())
      return std::move(Model);
  }
  TraceModel Model;
  KinetoWalker Walker(In, Opts, Progress, Model);
  if (llvm::Error E = Walker.run())
    return std::move(E);
  return std::move(Model);
}
