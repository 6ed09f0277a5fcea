//===- Synth.h - Realistic training traces of any size ----------*- C++ -*-===//
//
// dd-synth's library: it makes the trace of a data-parallel training job
// (a CNN, a transformer or a recommender; any number of layers, iterations
// and ranks) as the TraceModel a profiler front-end would have read from
// it, one per rank. The same models are lowered by the importer's own code
// (lowerTrace, lowerJob) into a graph, or written as Kineto JSON
// (KinetoWriter.h) that dd-import reads back into the same graph: the two
// outputs are one trace. docs/Synth.md describes the families and the
// timing model.
//
// Everything random comes from Random.h, seeded from the options, so the
// same options give the same models, bytes for bytes, on any machine.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SYNTH_SYNTH_H
#define DAYDREAM_SYNTH_SYNTH_H

#include "daydream/IR/Graph.h"
#include "daydream/Import/TraceModel.h"

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dd::synth {

enum class Family : uint8_t { Cnn, Transformer, Recommender };

llvm::StringRef toString(Family F);
llvm::Optional<Family> parseFamily(llvm::StringRef S);

/// What layers count in each family, and their defaults.
unsigned defaultLayers(Family F);

struct SynthOptions {
  Family Fam = Family::Transformer;
  /// 0: the family's default, or whatever gives about Tasks tasks.
  unsigned Layers = 0;
  /// 0: 3, or whatever gives about Tasks tasks.
  unsigned Iterations = 0;
  unsigned Ranks = 1;
  /// Tasks of the whole job's graph to aim for; 0 for no target. At most
  /// one of Layers and Iterations may be given with it.
  uint64_t Tasks = 0;
  uint64_t Seed = 1;
  /// How much the ranks' speeds differ: each rank's GPU and CPU times are
  /// scaled by 1 + RankJitter * u, u uniform on [-1, 1].
  double RankJitter = 0.02;
  /// Every rank the same program with the same random draws (and no
  /// jitter): a job whose ranks dd-sim simulates once (Sim/Symmetry.h).
  bool IdenticalRanks = false;
  /// Tensor-parallel degree: 1, or groups of this many consecutive ranks
  /// that all-reduce each block's activations (transformer only), inside
  /// data-parallel groups of the ranks with the same place in theirs
  /// (rank r is in tensor-parallel group r / T and data-parallel group
  /// r % T). Above 1, every collective names its process group.
  unsigned TensorParallel = 1;
};

/// A job resolved from the options: its shape and its graph's size.
struct JobPlan {
  Family Fam = Family::Transformer;
  unsigned Layers = 0, Iterations = 0, Ranks = 1;
  uint64_t Seed = 1;
  uint32_t JitterPpm = 0;
  bool IdenticalRanks = false;
  unsigned TensorParallel = 1; ///< SynthOptions::TensorParallel
  /// Tasks of one rank's graph as lowered on its own.
  uint64_t TasksPerRank = 0;
  /// Collective kernels each rank issues over the run.
  uint64_t CollectivesPerRank = 0;
  /// Tasks of the job's graph: every rank's, plus an arrive marker per
  /// collective kernel and a barrier per collective when there are ranks
  /// to match (docs/Import.md, "Multi-rank jobs").
  uint64_t Tasks = 0;
};

/// Checks the options and resolves them into a plan: the family's defaults,
/// or the layers and iterations whose graph comes closest to Opts.Tasks.
/// Errors name the option that is wrong.
llvm::Expected<JobPlan> planJob(const SynthOptions &Opts);

/// Makes every rank's trace, in rank order. The ranks meet at their
/// collectives: each NCCL kernel ends when the last rank has reached it and
/// the data has moved, so generation walks the ranks in step from one
/// collective to the next. With \p FirstRankOnly, a job whose ranks are
/// copies of rank 0 (ranksAreCopies()) gets rank 0's trace only.
std::vector<import::TraceModel> generateJob(const JobPlan &Plan,
                                            bool FirstRankOnly = false);

/// Whether every rank of \p Plan is the same as rank 0 in all a graph
/// stores of a rank's tasks: -identical-ranks without tensor parallelism
/// (whose groups name their members, which differ by rank).
bool ranksAreCopies(const JobPlan &Plan);

/// Gives a lane of a rank stored as a copy of rank 0 (which starts as rank
/// 0's, its Rank set) the device and thread id the generator gives that
/// rank (import::RankTrace::CopyLane).
void nameCopyLane(Lane &L);

/// A label for the trace: what made it, with the options that make it again.
std::string describePlan(const JobPlan &Plan);

} // namespace dd::synth

#endif // DAYDREAM_SYNTH_SYNTH_H
