//===- Fusion.h - What the fusion passes share ------------------*- C++ -*-===//
//
// kernel-fusion, fused-optimizer and reconstruct-batchnorm all merge runs of
// kernels that follow one another on a GPU stream into one kernel. This kit
// makes them draw chain boundaries, time and name fused kernels and drop the
// launches of fused-away kernels alike.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_PASSES_FUSION_H
#define DAYDREAM_PASSES_FUSION_H

#include "daydream/IR/Graph.h"
#include "daydream/Pass/AnalysisManager.h"
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/Primitives.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <vector>

namespace dd {
namespace fusion {

/// Bits of findChainBarriers(): other work waits on the task (an edge
/// leaves it), or the task waits on something other than its launch.
enum : char { EndsChain = 1, StartsChain = 2 };

/// Where a fused kernel must stop, per task (EndsChain, StartsChain). A
/// kernel that something else waits on cannot hand its result over
/// mid-kernel, and one that waits on other work would hold back the members
/// before it. Stopping there also keeps the graph acyclic.
std::vector<char> findChainBarriers(const Graph &G);

/// Whether \p Next, the lane successor of \p Prev, may join a fused kernel
/// that \p Prev is in: both kernels of one phase, no barrier between them.
bool canChain(const Graph &G, const std::vector<char> &Barriers, TaskId Prev,
              TaskId Next);

/// Calls \p OnRun on each maximal run of tasks for which \p Eligible holds
/// that follow one another on a GPU stream and canChain(), cut every
/// \p MaxLength members (0: no limit), of at least \p MinLength members,
/// as soon as the run ends, while its tasks are still in cache. Linear in
/// the tasks.
void forEachKernelRun(const Graph &G, const std::vector<char> &Barriers,
                      llvm::function_ref<bool(TaskId)> Eligible,
                      size_t MinLength, size_t MaxLength,
                      llvm::function_ref<void(llvm::ArrayRef<TaskId>)> OnRun);

/// max(longest member, Keep x summed duration), rounded to the nanosecond:
/// the fused kernel still moves at least the bytes of its largest member.
int64_t fusedDuration(const Graph &G, llvm::ArrayRef<TaskId> Members,
                      double Keep);

class FusedNamer;

/// Fuses groups of kernels (consecutive on one stream, chosen with
/// canChain()): each merges into its first kernel, which is renamed
/// "fused(...)", marked synthetic and noted with the members' names; then
/// the launch calls of the others go, keeping the ordering constraints
/// through them. With \p DropLaunchGaps the untraced CPU time before each
/// removed call goes too; otherwise it moves to the next task on the
/// thread.
class KernelFuser {
public:
  explicit KernelFuser(Graph &G);
  ~KernelFuser();

  /// Adds a group and names its first kernel now, while the run's tasks
  /// are in cache: call it as each run is found (forEachKernelRun() never
  /// looks back at a finished run).
  void add(llvm::ArrayRef<TaskId> Members, int64_t DurationNs);
  bool empty() const { return Groups.empty(); }
  /// Merges the groups and removes the launches. Once.
  void fuse(bool DropLaunchGaps);
  /// Adds the runs and kernels fused to the running pass's -stats.
  void countStatistics(AnalysisManager &AM) const {
    AM.count("kernel runs fused", NumRuns);
    AM.count("kernels fused into them", NumKernels);
  }

private:
  Graph &G;
  MergeGroupList Groups;
  std::unique_ptr<FusedNamer> Namer;
  StrId FusedNoteKey = NoId;
  size_t NumRuns = 0, NumKernels = 0;
};

/// Parses "a,b,c" kernel class names (and "all" when \p AllowAll, read as
/// the empty list).
llvm::Error parseClassList(llvm::StringRef S, std::vector<KernelClass> &Out,
                           bool AllowAll);
void printClassList(llvm::raw_ostream &OS, llvm::ArrayRef<KernelClass> Classes);

} // namespace fusion
} // namespace dd

#endif // DAYDREAM_PASSES_FUSION_H
