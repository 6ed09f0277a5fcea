//===- TextParser.cpp - Parse the .ddir text form -------------------------===//
//
// The statement grammar of the text form, over TokenReader (TextLexer.h). It
// builds the Graph as it reads, one statement per line. Labels are mapped to
// ids in order of definition, so a file written by the printer (labels 0, 1,
// 2, ... in canonical order) reads back with the same ids. Edges and notes
// may name tasks defined further down; those are resolved once the whole
// file is read. It stops at the first error, which names its line and column.
//
//===----------------------------------------------------------------------===//

#include "TextLexer.h"

#include "daydream/IR/TextFormat.h"

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringMap.h"

#include <array>
#include <cstring>

using namespace dd;
using llvm::Error;
using llvm::StringRef;
using llvm::Twine;

namespace {

/// A use of a task label, kept until the label can be resolved.
struct TaskRef {
  StringRef Spelling; // "%name"
  unsigned Line, Col;
};

/// An edge, a note or a memory event's task, resolved once every task
/// label is known.
struct Deferred {
  TaskRef Src, Dst; // Dst is unused for notes and memory events
  bool IsNote;
  EdgeKind Kind;
  StrId Key, Value;
  /// The memory event whose task Src is, or NoId.
  uint32_t MemoryEvent = NoId;
};

constexpr StringRef DeviceKeys[] = {"sms",  "memory", "fp32",
                                    "fp16", "bf16",   "bw"};
constexpr StringRef RankKeys[] = {"world", "host", "copy-of"};
constexpr StringRef PipelineKeys[] = {"tool", "input"};
constexpr StringRef CountKeys[] = {"tasks", "edges", "notes", "memory"};
constexpr StringRef LaneKeys[] = {"native", "rank", "device", "order"};
constexpr StringRef LayerKeys[] = {"parent"};
constexpr StringRef IterationKeys[] = {"start", "measured", "rank"};
constexpr StringRef TaskKeys[] = {"start", "dur",   "gap",   "layer", "phase",
                                  "corr",  "flags", "bytes", "flops", "grid",
                                  "block", "smem",  "regs",  "copy",  "dtype"};
/// The TaskKeys from "bytes" on fill a TaskAttrs.
constexpr unsigned FirstTaskAttrKey = 7;
constexpr StringRef MemoryKeys[] = {"time",     "bytes", "total",  "reserved",
                                    "addr",     "lane",  "device", "task",
                                    "category", "flags"};

class Parser {
public:
  explicit Parser(StringRef Text) : Text(Text), R(Text) {}
  llvm::Expected<Graph> run();

private:
  const Token &tok() const { return R.tok(); }

  Error checkNoNul() const;
  Error parseHeader();
  Error parseStatement();
  Error parseMetaString(std::string &Out, bool &Seen);
  Error parseDevice();
  Error parseRank();
  Error parsePipeline();
  Error parseLane();
  Error parseLayer();
  Error parseIteration();
  Error parseTask();
  Error parseEdge();
  Error parseNote();
  Error parseMemory();
  Error parseCounts();
  Error checkCounts() const;
  Error resolveDeferred();

  Error readStrId(StrId &Out, const Twine &What) {
    return R.readString(What, [&](StringRef S) { Out = G.intern(S); });
  }
  Error defineLabel(llvm::StringMap<uint32_t> &Labels, TokKind K,
                    StringRef What, uint32_t Id);
  Error readUse(const llvm::StringMap<uint32_t> &Labels, TokKind K,
                StringRef What, uint32_t &Out);
  Error readTaskRef(TaskRef &Out);
  TaskId lookupTask(const TaskRef &Ref) const;

  StringRef Text;
  TokenReader R;
  Graph G;
  llvm::StringMap<uint32_t> TaskLabels, LaneLabels, LayerLabels;
  std::vector<Deferred> Pending;
  bool SeenProducer = false, SeenSource = false;
  /// What a `counts` statement promised (tasks, edges, notes, memory
  /// events), and where it was.
  llvm::Optional<std::array<uint64_t, 4>> Promised;
  Token CountsTok;
  uint64_t NumEdges = 0, NumNotes = 0;
};

Error Parser::checkNoNul() const {
  // A binary file fed to the text reader almost always has one; saying so
  // beats a confusing syntax error.
  const void *Nul = std::memchr(Text.data(), 0, Text.size());
  if (!Nul)
    return Error::success();
  size_t Pos = static_cast<const char *>(Nul) - Text.data();
  StringRef Before = Text.take_front(Pos);
  size_t LineStart = Before.rfind('\n') + 1; // npos + 1 == 0
  return TokenReader::error(1 + Before.count('\n'), Pos - LineStart + 1,
                            "not a text .ddir file (contains a NUL byte)");
}

Error Parser::defineLabel(llvm::StringMap<uint32_t> &Labels, TokKind K,
                          StringRef What, uint32_t Id) {
  if (tok().Kind != K)
    return R.expected("a " + What + " label");
  if (!Labels.try_emplace(tok().Value, Id).second)
    return R.error(tok(),
                   "duplicate " + What + " label " + describeToken(tok()));
  R.advance();
  return Error::success();
}

Error Parser::readUse(const llvm::StringMap<uint32_t> &Labels, TokKind K,
                      StringRef What, uint32_t &Out) {
  if (tok().Kind != K)
    return R.expected("a " + What + " label");
  auto It = Labels.find(tok().Value);
  if (It == Labels.end())
    return R.error(tok(),
                   "undefined " + What + " label " + describeToken(tok()));
  Out = It->second;
  R.advance();
  return Error::success();
}

Error Parser::readTaskRef(TaskRef &Out) {
  if (tok().Kind != TokKind::TaskLabel)
    return R.expected("a task label");
  Out = TaskRef{tok().Text, tok().Line, tok().Col};
  R.advance();
  return Error::success();
}

TaskId Parser::lookupTask(const TaskRef &Ref) const {
  auto It = TaskLabels.find(Ref.Spelling.drop_front());
  return It == TaskLabels.end() ? NoId : It->second;
}

Error Parser::parseHeader() {
  while (tok().Kind == TokKind::EndOfLine)
    R.advance();
  if (tok().Kind == TokKind::EndOfFile)
    return R.error(1, 1, "expected 'ddir' header");
  if (tok().Kind != TokKind::Word || tok().Text != "ddir")
    return R.error(tok(), "expected 'ddir' header");
  R.advance();
  if (tok().Kind != TokKind::Number)
    return R.expected("a version number");
  Token VersionTok = tok();
  int64_t Version;
  if (Error E = R.readInt(Version))
    return E;
  if (Version != 1)
    return R.error(VersionTok,
                   "unsupported version " + Twine(Version) + " (expected 1)");
  return Error::success();
}

Error Parser::parseMetaString(std::string &Out, bool &Seen) {
  if (Seen)
    return R.error(tok(), "duplicate '" + tok().Text + "' statement");
  Seen = true;
  R.advance();
  return R.readString("a string", Out);
}

Error Parser::parseDevice() {
  R.advance();
  Device D;
  if (Error E = R.readInt(D.Index))
    return E;
  if (Error E = R.readString("a device name string", D.Name))
    return E;
  KeySet Seen;
  if (Error E = R.readKeyValues(DeviceKeys, Seen, [&](unsigned Key) -> Error {
        switch (Key) {
        case 0:
          return R.readInt(D.SmCount);
        case 1:
          return R.readInt(D.MemoryBytes);
        case 2:
          return R.readFloat(D.PeakFp32Tflops);
        case 3:
          return R.readFloat(D.PeakFp16Tflops);
        case 4:
          return R.readFloat(D.PeakBf16Tflops);
        default:
          return R.readFloat(D.MemoryBandwidthGBps);
        }
      }))
    return E;
  G.metadata().Devices.push_back(std::move(D));
  return Error::success();
}

Error Parser::parseRank() {
  R.advance();
  RankInfo Info;
  if (Error E = R.readInt(Info.Rank))
    return E;
  KeySet Seen;
  if (Error E = R.readKeyValues(RankKeys, Seen, [&](unsigned Key) -> Error {
        if (Key == 0)
          return R.readInt(Info.WorldSize);
        if (Key == 2)
          return R.readInt(Info.CopyOf);
        return R.readString("a host name string", Info.Host);
      }))
    return E;
  G.metadata().Ranks.push_back(std::move(Info));
  return Error::success();
}

Error Parser::parsePipeline() {
  R.advance();
  PipelineRun Run;
  if (Error E = R.readString("a pipeline string", Run.Pipeline))
    return E;
  KeySet Seen;
  if (Error E = R.readKeyValues(PipelineKeys, Seen, [&](unsigned Key) -> Error {
        return R.readString(Key == 0 ? "a tool string" : "an input string",
                            Key == 0 ? Run.Tool : Run.Input);
      }))
    return E;
  G.metadata().Pipelines.push_back(std::move(Run));
  return Error::success();
}

Error Parser::parseLane() {
  R.advance();
  if (Error E = defineLabel(LaneLabels, TokKind::LaneLabel, "lane",
                            static_cast<LaneId>(G.numLanes())))
    return E;
  Lane L;
  if (Error E = R.readEnum(L.Kind, parseLaneKind, "a lane kind"))
    return E;
  if (Error E = readStrId(L.Name, "a lane name string"))
    return E;
  KeySet Seen;
  if (Error E = R.readKeyValues(LaneKeys, Seen, [&](unsigned Key) -> Error {
        switch (Key) {
        case 0:
          return R.readInt(L.NativeId);
        case 1:
          return R.readInt(L.Rank);
        case 2:
          return R.readInt(L.Device);
        default:
          return R.readEnum(L.Order, parseLaneOrder, "a lane order");
        }
      }))
    return E;
  G.addLane(L);
  return Error::success();
}

Error Parser::parseLayer() {
  R.advance();
  if (Error E = defineLabel(LayerLabels, TokKind::LayerLabel, "layer",
                            static_cast<LayerId>(G.numLayers())))
    return E;
  Layer L;
  if (Error E = readStrId(L.Name, "a layer name string"))
    return E;
  KeySet Seen;
  if (Error E = R.readKeyValues(LayerKeys, Seen, [&](unsigned) {
        return readUse(LayerLabels, TokKind::LayerLabel, "layer", L.Parent);
      }))
    return E;
  G.addLayer(L);
  return Error::success();
}

Error Parser::parseIteration() {
  R.advance();
  Iteration It;
  if (Error E = readStrId(It.Name, "an iteration name string"))
    return E;
  KeySet Seen;
  if (Error E = R.readKeyValues(IterationKeys, Seen, [&](unsigned Key) {
        if (Key == 2)
          return R.readInt(It.Rank);
        return R.readInt(Key == 0 ? It.StartNs : It.MeasuredNs);
      }))
    return E;
  G.iterationsMut().push_back(It);
  return Error::success();
}

Error Parser::parseTask() {
  Token Keyword = tok();
  R.advance();
  if (G.numTaskSlots() >= NoId)
    return R.error(Keyword, "too many tasks");
  TaskId Id = static_cast<TaskId>(G.numTaskSlots());
  if (Error E = defineLabel(TaskLabels, TokKind::TaskLabel, "task", Id))
    return E;
  Task T;
  if (Error E = R.readEnum(T.Kind, parseTaskKind, "a task kind"))
    return E;
  if (Error E = readUse(LaneLabels, TokKind::LaneLabel, "lane", T.Lane))
    return E;
  if (Error E = readStrId(T.Name, "a task name string"))
    return E;
  TaskAttrs A;
  KeySet Seen;
  if (Error E = R.readKeyValues(TaskKeys, Seen, [&](unsigned Key) -> Error {
        switch (Key) {
        case 0:
          return R.readInt(T.StartNs);
        case 1:
          return R.readInt(T.DurationNs);
        case 2:
          return R.readInt(T.GapNs);
        case 3:
          return readUse(LayerLabels, TokKind::LayerLabel, "layer", T.Layer);
        case 4:
          return R.readEnum(T.Phase, parsePhase, "a phase");
        case 5:
          return R.readInt(T.Correlation);
        case 6:
          return R.readInt(T.Flags);
        case 7:
          return R.readInt(A.Bytes);
        case 8:
          return R.readInt(A.Flops);
        case 9:
          return R.readTriple(A.Grid);
        case 10:
          return R.readTriple(A.Block);
        case 11:
          return R.readInt(A.SharedMemBytes);
        case 12:
          return R.readInt(A.RegistersPerThread);
        case 13:
          return R.readInt(A.CopyKind);
        default: {
          DType D = DType::Unknown;
          if (Error E = R.readEnum(D, parseDType, "a dtype"))
            return E;
          A.DType = uint8_t(D);
          return Error::success();
        }
        }
      }))
    return E;
  for (unsigned Required : {0u, 1u})
    if (!(Seen & (KeySet(1) << Required)))
      return R.error(Keyword, "missing attribute '" + TaskKeys[Required] + "'");
  G.addTask(T);
  if (Seen >> FirstTaskAttrKey)
    G.setAttrs(Id, A);
  return Error::success();
}

Error Parser::parseEdge() {
  R.advance();
  Deferred D{};
  if (Error E = readTaskRef(D.Src))
    return E;
  if (tok().Kind != TokKind::Arrow)
    return R.expected("'->'");
  R.advance();
  if (Error E = readTaskRef(D.Dst))
    return E;
  if (Error E = R.readEnum(D.Kind, parseEdgeKind, "an edge kind"))
    return E;
  ++NumEdges;
  TaskId Src = lookupTask(D.Src), Dst = lookupTask(D.Dst);
  if (Src != NoId && Dst != NoId)
    G.addEdge(Src, Dst, D.Kind);
  else
    Pending.push_back(D);
  return Error::success();
}

Error Parser::parseNote() {
  R.advance();
  Deferred D{};
  D.IsNote = true;
  if (Error E = readTaskRef(D.Src))
    return E;
  if (Error E = readStrId(D.Key, "a note key string"))
    return E;
  if (Error E = readStrId(D.Value, "a note value string"))
    return E;
  // Always deferred, so that the notes of a task keep their file order
  // whether or not the task was defined when each was read.
  ++NumNotes;
  Pending.push_back(D);
  return Error::success();
}

Error Parser::parseMemory() {
  Token Keyword = tok();
  R.advance();
  MemoryEvent M;
  TaskRef Owner{};
  KeySet Seen;
  if (Error E = R.readKeyValues(MemoryKeys, Seen, [&](unsigned Key) -> Error {
        switch (Key) {
        case 0:
          return R.readInt(M.TimeNs);
        case 1:
          return R.readInt(M.Bytes);
        case 2:
          return R.readInt(M.TotalAllocated);
        case 3:
          return R.readInt(M.TotalReserved);
        case 4:
          return R.readInt(M.Address);
        case 5:
          return readUse(LaneLabels, TokKind::LaneLabel, "lane", M.Lane);
        case 6:
          return R.readInt(M.Device);
        case 7:
          return readTaskRef(Owner);
        case 9:
          return R.readInt(M.Flags);
        default: {
          MemoryCategory C;
          if (Error E = R.readEnum(C, parseMemoryCategory, "a memory category"))
            return E;
          M.Category = uint8_t(C);
          return Error::success();
        }
        }
      }))
    return E;
  for (unsigned Required : {0u, 1u})
    if (!(Seen & (KeySet(1) << Required)))
      return R.error(Keyword,
                     "missing attribute '" + MemoryKeys[Required] + "'");
  if (!Owner.Spelling.empty()) {
    Deferred D{};
    D.Src = Owner;
    D.MemoryEvent = uint32_t(G.memoryEvents().size());
    Pending.push_back(D);
  }
  G.addMemoryEvent(M);
  return Error::success();
}

Error Parser::resolveDeferred() {
  for (const Deferred &D : Pending) {
    TaskId Src = lookupTask(D.Src);
    TaskId Dst = D.IsNote || D.MemoryEvent != NoId ? Src : lookupTask(D.Dst);
    const TaskRef &Bad = Src == NoId ? D.Src : D.Dst;
    if (Src == NoId || Dst == NoId)
      return R.error(Bad.Line, Bad.Col,
                     "undefined task label " + quoteForMessage(Bad.Spelling));
    if (D.MemoryEvent != NoId)
      G.setMemoryEventTask(D.MemoryEvent, Src);
    else if (D.IsNote)
      G.addNote(TaskNote{Src, D.Key, D.Value});
    else
      G.addEdge(Src, Dst, D.Kind);
  }
  return Error::success();
}

Error Parser::parseStatement() {
  if (tok().Kind != TokKind::Word)
    return R.expected("a statement");
  StringRef K = tok().Text;
  if (K == "task")
    return parseTask();
  if (K == "edge")
    return parseEdge();
  if (K == "note")
    return parseNote();
  if (K == "memory")
    return parseMemory();
  if (K == "lane")
    return parseLane();
  if (K == "layer")
    return parseLayer();
  if (K == "iteration")
    return parseIteration();
  if (K == "device")
    return parseDevice();
  if (K == "rank")
    return parseRank();
  if (K == "pipeline")
    return parsePipeline();
  if (K == "producer")
    return parseMetaString(G.metadata().Producer, SeenProducer);
  if (K == "source")
    return parseMetaString(G.metadata().SourceFormat, SeenSource);
  if (K == "counts")
    return parseCounts();
  if (K == "ddir")
    return R.error(tok(), "duplicate 'ddir' header");
  return R.error(tok(), "unknown statement " + describeToken(tok()));
}

// The printer writes `counts` first, so a file cut short anywhere (at a line
// end, where every statement before the cut still reads) is refused rather
// than read as a smaller graph. Hand-written files may leave it out.
Error Parser::parseCounts() {
  if (Promised)
    return R.error(tok(), "duplicate 'counts' statement");
  CountsTok = tok();
  R.advance();
  std::array<uint64_t, 4> N = {0, 0, 0, 0};
  KeySet Seen;
  if (Error E = R.readKeyValues(CountKeys, Seen, [&](unsigned Key) -> Error {
        return R.readInt(N[Key]);
      }))
    return E;
  Promised = N;
  return Error::success();
}

Error Parser::checkCounts() const {
  if (!Promised)
    return Error::success();
  const std::array<uint64_t, 4> Found = {TaskLabels.size(), NumEdges, NumNotes,
                                         G.memoryEvents().size()};
  for (unsigned I = 0; I != 4; ++I)
    if (Found[I] != (*Promised)[I])
      return R.error(
          CountsTok,
          "'counts' promises " + Twine((*Promised)[I]) + " " + CountKeys[I] +
              " but the file holds " + Twine(Found[I]) +
              (Found[I] < (*Promised)[I] ? " (it is cut short)" : ""));
  return Error::success();
}

llvm::Expected<Graph> Parser::run() {
  if (Error E = checkNoNul())
    return E;
  if (Error E = parseHeader())
    return E;
  while (true) {
    if (!R.atEndOfStatement())
      return R.expected("end of line");
    while (tok().Kind == TokKind::EndOfLine)
      R.advance();
    if (tok().Kind == TokKind::EndOfFile)
      break;
    if (Error E = parseStatement())
      return E;
  }
  if (Error E = checkCounts())
    return E;
  if (Error E = resolveDeferred())
    return E;
  return std::move(G);
}

} // namespace

llvm::Expected<Graph> dd::parseTextGraph(StringRef Text) {
  return Parser(Text).run();
}
