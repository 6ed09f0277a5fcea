//===- Importer.cpp - Any supported trace to a graph ----------------------===//
//
// Format detection and dispatch. SQLite reads only from files, so an Nsight
// Systems export that arrives on stdin or gzipped is written to a temporary
// file first (and removed afterwards).
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/Importer.h"
#include "daydream/IR/FileKind.h"
#include "daydream/Import/CuptiRecordReader.h"
#include "daydream/Import/ImportJob.h"
#include "daydream/Import/InputFile.h"
#include "daydream/Import/NsysReader.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace dd;
using namespace dd::import;

namespace {

/// How much of an input tells its format (FileKind.h reads its first bytes).
constexpr size_t SniffBytes = size_t(64) << 10;

llvm::Error prefixed(llvm::StringRef Name, llvm::Error E) {
  std::string Msg = llvm::toString(std::move(E));
  if (llvm::StringRef(Msg).startswith((Name + ":").str()))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 Name + ": " + Msg);
}

/// Reads an SQLite export held in memory through a temporary file.
llvm::Expected<TraceModel> readNsysBytes(const InputFile &In) {
  llvm::SmallString<128> Tmp;
  int FD;
  if (std::error_code EC =
          llvm::sys::fs::createTemporaryFile("dd-import", "sqlite", FD, Tmp))
    return llvm::createStringError(EC, "cannot create a temporary file: %s",
                                   EC.message().c_str());
  llvm::FileRemover Remove(Tmp);
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << In.Bytes.str();
    if (OS.has_error())
      return llvm::createStringError(OS.error(),
                                     "cannot write a temporary file");
  }
  return readNsysTrace(Tmp);
}

/// A folder given for a trace: TensorBoard's profiler plugin writes its
/// traces as DIR/plugins/profile/RUN/HOST.pt.trace.json.gz, so name what
/// the folder holds.
llvm::Error directoryError(llvm::StringRef Path) {
  std::vector<std::string> Traces;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Path, EC), End;
       It != End && !EC && Traces.size() < 3; It.increment(EC)) {
    llvm::StringRef P = It->path();
    if (It.level() <= 4 &&
        (P.endswith(".pt.trace.json") || P.endswith(".pt.trace.json.gz")))
      Traces.push_back(P.str());
  }
  std::string Msg = "is a directory, not a trace";
  if (Traces.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        Msg + " (give a PyTorch profiler trace, an Nsight Systems SQLite "
              "export or a dd-trace record file)");
  Msg += "; it holds PyTorch profiler traces (TensorBoard's layout): give "
         "one, e.g. " +
         Traces.front();
  if (Traces.size() > 1)
    Msg += " (a job's ranks: give them all)";
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

} // namespace

llvm::Expected<ImportResult> dd::import::readTrace(llvm::StringRef Path,
                                                   const ImportOptions &Opts,
                                                   TraceModel &Out,
                                                   ProgressFn Progress) {
  auto Seconds = [Start = std::chrono::steady_clock::now()]() mutable {
    auto Now = std::chrono::steady_clock::now();
    double S = std::chrono::duration<double>(Now - Start).count();
    Start = Now;
    return S;
  };
  if (Path != "-" && llvm::sys::fs::is_directory(Path))
    return prefixed(Path, directoryError(Path));
  // A gzip is inflated on a second thread while the Kineto reader parses
  // what has arrived (InflateAhead.h); the other readers take it whole.
  auto In = loadInputFile(Path, Opts.MaxInputBytes,
                          /*InflateAheadOfReader=*/true);
  if (!In)
    return In.takeError();
  // Only the Kineto reader reads the bytes as they arrive; JSON was told
  // by a byte that arrived.
  InputFormat Format = detectFormat(In->arrived(SniffBytes));
  if (Format != InputFormat::KinetoJson)
    if (llvm::Error E = In->finishInflating())
      return prefixed(In->Name, std::move(E));
  if (In->arrived(1).empty())
    return prefixed(
        In->Name,
        llvm::createStringError(llvm::inconvertibleErrorCode(), "empty file"));
  ImportResult R;
  R.LoadSeconds = Seconds();
  R.InputBytes = In->StoredSize;

  llvm::Expected<TraceModel> Model = llvm::createStringError(
      llvm::inconvertibleErrorCode(), "unknown trace format");
  // The whole text tells what a start of blanks did not.
  if (Format == InputFormat::Unknown)
    Format = detectFormat(In->Bytes.str());
  switch (Format) {
  case InputFormat::KinetoJson:
    R.Format = "kineto";
    Model = readKinetoTrace(*In, Opts.Kineto, Progress);
    // A bad gzip is the error, whatever the parse made of its start; a
    // text that outgrew the trailer's size is read again, whole.
    if (bool Redo = false; llvm::Error E = In->finishInflating(&Redo)) {
      llvm::consumeError(Model.takeError());
      return prefixed(In->Name, std::move(E));
    } else if (Redo) {
      llvm::consumeError(Model.takeError());
      Model = readKinetoTrace(*In, Opts.Kineto, Progress);
    }
    break;
  case InputFormat::NsysSqlite:
    R.Format = "nsys";
    Model =
        Path != "-" && !In->WasGzip ? readNsysTrace(Path) : readNsysBytes(*In);
    break;
  case InputFormat::CuptiRecords:
    R.Format = "cupti";
    Model = readCuptiRecordFiles({{In->Name, In->Bytes.str()}}, R.Warnings);
    break;
  case InputFormat::Unknown:
    if (std::string Hint =
            wrongKindHint(sniffFileKind(In->Name, In->Bytes.str()), In->Name,
                          /*WantedGraph=*/false);
        !Hint.empty())
      return prefixed(In->Name, llvm::createStringError(
                                    llvm::inconvertibleErrorCode(), Hint));
    return prefixed(In->Name,
                    llvm::createStringError(
                        llvm::inconvertibleErrorCode(),
                        "unknown trace format (expected PyTorch profiler "
                        "JSON, an Nsight Systems SQLite export or a dd-trace "
                        "record file)"));
  }
  if (!Model)
    return prefixed(In->Name, Model.takeError());
  R.TextBytes = In->Bytes.size();
  R.ReadSeconds = Seconds();
  R.Read = Model->Stats;
  for (std::string &W : Model->Warnings)
    R.Warnings.push_back(std::move(W));
  Model->Warnings.clear();
  if (size_t Bad = Model->Strings.numRepaired())
    R.Warnings.push_back((In->Name + ": " + llvm::Twine(Bad) +
                          " name(s) not valid UTF-8, their bad bytes read "
                          "as U+FFFD")
                             .str());
  R.Name = In->Name;
  Out = std::move(*Model);
  return std::move(R);
}

/// A trace of one rank has no other ranks to check its process groups
/// against, but a members list ("Process Group Ranks") that does not parse
/// is warned of (a job's importer refuses it, MatchCollectives.h): the
/// passes then know the group's size at most, not its members.
static void warnOfMalformedGroups(ImportResult &R) {
  const Graph &G = R.G;
  size_t Bad = 0;
  std::string First;
  for (const TaskNote &N : G.notes()) {
    if (N.Task >= G.numTaskSlots() || !G.isLive(N.Task) ||
        G.task(N.Task).Kind != TaskKind::Collective ||
        G.str(N.Key) != "group-ranks")
      continue;
    auto Parsed = parseGroupRanks(G.str(N.Value));
    if (Parsed)
      continue;
    std::string Why = llvm::toString(Parsed.takeError());
    if (Bad++ == 0)
      First = "collective kernel '" + G.str(G.task(N.Task).Name).str() +
              "': " + Why;
  }
  if (Bad)
    R.Warnings.push_back((R.Name + ": " + llvm::Twine(Bad) +
                          " collective kernel(s) list process group members "
                          "that do not parse, so the passes do not know "
                          "which ranks they join (first: " +
                          First + ")")
                             .str());
}

llvm::Error dd::import::lowerInto(ImportResult &R, TraceModel &&Model,
                                  const LoweringOptions &Opts) {
  auto Start = std::chrono::steady_clock::now();
  auto G = lowerTrace(std::move(Model), Opts, R.Lowered);
  if (!G)
    return prefixed(R.Name, G.takeError());
  R.G = std::move(*G);
  // Inconsistent CPU ranges were clipped into a consistent graph; say so.
  const LoweringStats &L = R.Lowered;
  auto Warn = [&R](uint64_t Count, const char *What, const std::string &First) {
    if (Count)
      R.Warnings.push_back((R.Name + ": " + llvm::Twine(Count) + What +
                            " (first: " + First + ")")
                               .str());
  };
  Warn(L.ClippedRanges,
       " CPU ranges overlap a range they start in without nesting in it, "
       "clipped to its end",
       L.ClippedNote);
  Warn(L.RangesAcrossSteps,
       " CPU ranges run across a step boundary, their self time split there",
       L.AcrossStepsNote);
  R.LowerSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return llvm::Error::success();
}

llvm::Expected<ImportResult> dd::import::importTrace(llvm::StringRef Path,
                                                     const ImportOptions &Opts,
                                                     ProgressFn Progress) {
  TraceModel Model;
  auto R = readTrace(Path, Opts, Model, Progress);
  if (!R)
    return R.takeError();
  if (llvm::Error E = lowerInto(*R, std::move(Model), Opts.Lowering))
    return std::move(E);
  warnOfMalformedGroups(*R);
  return R;
}
