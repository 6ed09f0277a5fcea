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
#include "daydream/Transforms/KernelClass.h"
#include "daydream/Transforms/Primitives.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

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

/// Maximal runs of tasks for which \p Eligible holds that follow one
/// another on a GPU stream and canChain(), cut every \p MaxLength members
/// (0: no limit), of at least \p MinLength members. Linear in the tasks.
std::vector<std::vector<TaskId>>
findKernelRuns(const Graph &G, const std::vector<char> &Barriers,
               llvm::function_ref<bool(TaskId)> Eligible, size_t MinLength,
               size_t MaxLength);

/// max(longest member, Keep x summed duration), rounded to the nanosecond:
/// the fused kernel still moves at least the bytes of its largest member.
int64_t fusedDuration(const Graph &G, llvm::ArrayRef<TaskId> Members,
                      double Keep);

/// Merges each group (kernels consecutive on one stream, chosen with
/// canChain()) into its first kernel, which is renamed "fused(...)", marked
/// synthetic and noted with the members' names; then removes the launch
/// calls of the others, keeping the ordering constraints through them. With
/// \p DropLaunchGaps the untraced CPU time before each removed call goes
/// too; otherwise it moves to the next task on the thread.
void fuseKernelGroups(Graph &G, llvm::ArrayRef<MergeGroup> Groups,
                      bool DropLaunchGaps);

/// Parses "a,b,c" kernel class names (and "all" when \p AllowAll, read as
/// the empty list).
llvm::Error parseClassList(llvm::StringRef S, std::vector<KernelClass> &Out,
                           bool AllowAll);
void printClassList(llvm::raw_ostream &OS, llvm::ArrayRef<KernelClass> Classes);

} // namespace fusion
} // namespace dd

#endif // DAYDREAM_PASSES_FUSION_H
