//===- SeqPointTraces.cpp - A whole run's speedup from SeqPoint traces ----===//
//
// Each trace is read, simulated, transformed by a pipeline parsed afresh
// for it (a pass may keep state between runs, and each graph deserves a
// clean one) and simulated again. A graph is told from a trace to import
// by its bytes: a binary .ddir by its file identifier, a gzip stream or
// anything dd-import recognizes as a trace, and the rest is left to the
// text IR reader, whose error then says what is wrong.
//
//===----------------------------------------------------------------------===//

#include "SeqPointTraces.h"
#include "ToolSupport.h"
#include "daydream/IR/IRReader.h"
#include "daydream/IR/RankCopies.h"
#include "daydream/Import/Importer.h"
#include "daydream/Import/InputFile.h"
#include "daydream/Pass/PassRegistry.h"
#include "daydream/Sim/Simulator.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace dd;
using namespace dd::seqpoint;

static llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

llvm::Expected<std::vector<std::string>>
dd::findSeqPointTraces(llvm::ArrayRef<int64_t> Iterations, llvm::StringRef Dir,
                       llvm::ArrayRef<std::string> Explicit) {
  llvm::StringMap<std::string> Given;
  for (llvm::StringRef E : Explicit) {
    auto [Iter, File] = E.split('=');
    int64_t N;
    if (File.empty() || Iter.getAsInteger(10, N))
      return makeError("-trace=" + E + ": expected ITERATION=FILE");
    Given[std::to_string(N)] = File.str();
  }
  llvm::StringMap<std::vector<std::string>> InDir;
  if (!Dir.empty()) {
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
         It.increment(EC)) {
      llvm::StringRef Name = llvm::sys::path::filename(It->path());
      auto [Iter, Rest] = Name.split('.');
      if (!Rest.empty() &&
          Iter.find_first_not_of("0123456789") == llvm::StringRef::npos)
        InDir[std::to_string(std::stoll(Iter.str()))].push_back(It->path());
    }
    if (EC)
      return makeError(Dir + ": " + EC.message());
  }
  std::vector<std::string> Paths;
  for (int64_t I : Iterations) {
    std::string Key = std::to_string(I);
    if (auto It = Given.find(Key); It != Given.end()) {
      Paths.push_back(It->second);
      continue;
    }
    auto It = InDir.find(Key);
    if (It == InDir.end())
      return makeError(
          "no trace for SeqPoint iteration " + Key +
          (Dir.empty()
               ? llvm::Twine(" (give -trace=") + Key + "=FILE or -traces=DIR)"
               : llvm::Twine(" in ") + Dir + " (looked for " + Key + ".*)"));
    if (It->second.size() > 1) {
      llvm::sort(It->second);
      return makeError("two traces for SeqPoint iteration " + Key + ": " +
                       It->second[0] + " and " + It->second[1]);
    }
    Paths.push_back(It->second.front());
  }
  return Paths;
}

namespace {

llvm::Expected<Graph> loadGraph(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (std::error_code EC = Buf.getError())
    return makeError(Path + ": " + EC.message());
  llvm::StringRef Bytes = (*Buf)->getBuffer();
  if (looksLikeBinaryIR(Bytes) ||
      (!import::isGzip(Bytes) &&
       import::detectFormat(Bytes) == import::InputFormat::Unknown)) {
    auto G = readInputGraph(Path, GraphUse::Copy);
    if (!G)
      return G.takeError();
    // Every rank's iterations are measured.
    if (llvm::Error E = expandRankCopies(*G))
      return makeError(Path + ": " + llvm::toString(std::move(E)));
    return G;
  }
  auto R = import::importTrace(Path, import::ImportOptions{});
  if (!R)
    return R.takeError();
  return std::move(R->G);
}

/// Mean per-iteration time of a simulated graph, and of its recording.
std::pair<double, double> perIteration(const Graph &G, const SimResult &R) {
  double Predicted = 0, Recorded = 0;
  size_t NP = 0, NR = 0;
  for (const IterationResult &I : R.Iterations) {
    if (I.PredictedNs >= 0) {
      Predicted += double(I.PredictedNs);
      ++NP;
    }
    if (I.MeasuredNs >= 0) {
      Recorded += double(I.MeasuredNs);
      ++NR;
    }
  }
  return {NP ? Predicted / double(NP) / 1e3 : double(R.MakespanNs) / 1e3,
          NR ? Recorded / double(NR) / 1e3 : -1.0};
}

} // namespace

llvm::Expected<TraceProjection>
dd::projectWithTraces(const RunProfile &Run, llvm::ArrayRef<SeqPointBin> Bins,
                      llvm::ArrayRef<std::string> Paths,
                      const PassRegistry &Registry, llvm::StringRef Pipeline) {
  TraceProjection P;
  // Parsed once before any trace is read, so that a wrong pipeline fails
  // at once; an empty one models no change.
  auto Parse = [&](PassManager &PM) -> llvm::Error {
    return Pipeline.empty() ? llvm::Error::success()
                            : Registry.parsePipeline(Pipeline, PM);
  };
  {
    PassManager PM;
    if (llvm::Error E = Parse(PM))
      return std::move(E);
    llvm::raw_string_ostream OS(P.Pipeline);
    PM.printPipeline(OS);
  }
  for (size_t J = 0; J != Bins.size(); ++J) {
    SeqPointTrace T;
    T.Iteration = Run.iteration(Bins[J].Rep);
    T.Weight = Bins[J].Weight;
    T.Path = Paths[J];
    auto G = loadGraph(T.Path);
    if (!G)
      return G.takeError();
    auto Base = simulate(*G);
    if (!Base)
      return makeError(T.Path + ": " + llvm::toString(Base.takeError()));
    std::tie(T.BaselineUs, T.RecordedUs) = perIteration(*G, *Base);
    PassManager PM;
    if (llvm::Error E = Parse(PM))
      return std::move(E);
    AnalysisManager AM;
    AM.setReportStream(llvm::errs());
    AM.setWarningHandler([&T](llvm::StringRef Message) {
      reportWarning("dd-seqpoint", T.Path + ": " + Message);
    });
    if (llvm::Error E = PM.run(*G, AM))
      return makeError(T.Path + ": " + llvm::toString(std::move(E)));
    auto Opt = simulate(*G);
    if (!Opt)
      return makeError(T.Path + ": " + llvm::toString(Opt.takeError()));
    T.OptimizedUs = perIteration(*G, *Opt).first;
    P.BaselineUs += double(T.Weight) * T.BaselineUs;
    P.OptimizedUs += double(T.Weight) * T.OptimizedUs;
    P.Points.push_back(std::move(T));
  }
  return std::move(P);
}
