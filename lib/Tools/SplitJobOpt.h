//===- SplitJobOpt.h - dd-opt of a split job, rank by rank -----*- C++ -*-===//
//
// `dd-opt -amp job.ddjob -o amp.ddjob`: a what-if of a job kept as a file
// per rank (Import/SplitJob.h), made one rank at a time, so that no
// process holds more than one rank's graph, and `mpirun dd-sim amp.ddjob`
// then reads it in shares as it reads the job.
//
// A rank's file is not the rank as the job has it: the job's collectives
// (each a barrier on a lane of its process group, an arrival before each
// member's kernel, the kernels waiting for the barrier) are made when the
// ranks are read together. So two things must hold for the ranks, each
// through the pipeline alone, to give what the whole job through it would:
//
//  - every pass is rank-local (PassTrait::RankLocal): it changes each
//    rank's tasks from what that rank's own tasks say;
//  - the pipeline leaves the job's collectives as they are: run once over
//    the first rank's share of the job (its file whole, the other ranks as
//    their collective tables, the collectives matched: JobShare.h), it
//    changes no barrier, arrival or member's kernel. A selection that
//    names them (the lane "collectives world", a barrier's name
//    "all_reduce", kind=collective) would act on them in the whole job and
//    on nothing here.
//
// Otherwise dd-opt says which and asks for one file (-o FILE.ddir), the
// whole job in one graph. Each rank's file is then read (checked against
// the job file), run through the pipeline, verified, and written beside
// the new job file with its collective table; the tables are linked into
// the new job file, as `dd-import -split` does. No file appears under its
// final name until every rank is written and linked: a failure leaves the
// old files as they were. A warning a pass gives on some ranks is printed
// once, with the ranks that gave it.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_TOOLS_SPLITJOBOPT_H
#define DAYDREAM_LIB_TOOLS_SPLITJOBOPT_H

#include "daydream/Pass/AnalysisManager.h"
#include "daydream/Pass/PassManager.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace dd {

struct SplitJobOptOptions {
  llvm::StringRef Tool; ///< for the pipeline's provenance
  bool Text = false;    ///< write the ranks' files and tables in text
  bool DebugPM = false; ///< log passes and analyses (each rank's)
  /// Each warning, once, with the ranks that gave it.
  llvm::function_ref<void(llvm::StringRef)> Warn;
};

/// What the pipeline counted (dd-opt -stats), every rank's added up.
using SplitJobStats = std::vector<AnalysisManager::Statistic>;

/// Runs \p PM over each rank of the split job \p InPath and writes the
/// result as the split job \p OutPath, where the two conditions above
/// hold; fails, saying why, where they do not.
llvm::Expected<SplitJobStats> optimizeSplitJob(llvm::StringRef InPath,
                                               llvm::StringRef OutPath,
                                               const PassManager &PM,
                                               const PassInstrumentation &PI,
                                               const SplitJobOptOptions &Opts);

} // namespace dd

#endif // DAYDREAM_LIB_TOOLS_SPLITJOBOPT_H
