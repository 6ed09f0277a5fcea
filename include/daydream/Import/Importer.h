//===- Importer.h - Any supported trace to a graph --------------*- C++ -*-===//
//
// The entry point dd-import and tests use: load a file (or stdin), tell its
// format from its content (Kineto JSON, gzipped or not, an Nsight Systems
// SQLite export or a dd-trace record file), run that format's front-end and
// the common lowering.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IMPORT_IMPORTER_H
#define DAYDREAM_IMPORT_IMPORTER_H

#include "daydream/IR/Graph.h"
#include "daydream/Import/KinetoReader.h"
#include "daydream/Import/Lowering.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace dd::import {

struct ImportOptions {
  KinetoOptions Kineto;
  LoweringOptions Lowering;
  /// In a job, store a rank the same as an earlier one as its copy
  /// (FoldRanks.h in lib/Import, IR/RankCopies.h).
  bool FoldIdenticalRanks = true;
  /// The most bytes a gzipped input may decompress to (0: the machine's
  /// memory), so that a decompression bomb ends in an error.
  uint64_t MaxInputBytes = 0;
  /// In a job, how many ranks are read, and then lowered, at once (0: one
  /// per core): each read holds its trace's text until it is parsed, each
  /// lowering its rank's graph until that joins the job's.
  unsigned ReadThreads = 0;
};

struct ImportResult {
  Graph G;
  /// "kineto", "nsys" or "cupti" (a dd-trace record file).
  std::string Format;
  /// The input's name as messages give it ("<stdin>" for "-").
  std::string Name;
  uint64_t InputBytes = 0; ///< as stored (compressed size for .gz)
  uint64_t TextBytes = 0;  ///< after decompression
  ImportStats Read;
  LoweringStats Lowered;
  /// What the front-end warned about (each message names the input).
  std::vector<std::string> Warnings;
  /// Wall time of each step, for the summary and benchmarks.
  double LoadSeconds = 0, ReadSeconds = 0, LowerSeconds = 0;
};

/// Imports \p Path ("-" for stdin). Errors are prefixed with the input name.
/// Reads and lowers one trace.
llvm::Expected<ImportResult> importTrace(llvm::StringRef Path,
                                         const ImportOptions &Opts,
                                         ProgressFn Progress = nullptr);

/// The two halves of importTrace(), for callers that must see every input
/// before lowering any (a multi-rank job, ImportJob.h): readTrace() fills
/// everything but the graph and leaves the trace in \p Out; lowerInto()
/// lowers it into \p R.G.
llvm::Expected<ImportResult> readTrace(llvm::StringRef Path,
                                       const ImportOptions &Opts,
                                       TraceModel &Out,
                                       ProgressFn Progress = nullptr);
llvm::Error lowerInto(ImportResult &R, TraceModel &&Model,
                      const LoweringOptions &Opts);

} // namespace dd::import

#endif // DAYDREAM_IMPORT_IMPORTER_H
