//===- CollectiveNames.h - What a collective is called ---------*- C++ -*-===//
//
// The vocabulary of collectives, shared by the importer (which matches NCCL
// kernels across ranks and notes each barrier's kind, lib/Import/
// MatchCollectives.h) and the network model (NetworkModel.h): the kinds and
// algorithms, how notes and reports spell them, and how an NCCL or RCCL
// kernel's name tells them. A library of its own with no IR in it, so that
// the importer (and its fuzzer) can use it without the model.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_COMM_COLLECTIVENAMES_H
#define DAYDREAM_COMM_COLLECTIVENAMES_H

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace dd {
namespace comm {

/// What a collective does. Spelled in notes and reports as the importer
/// writes it: all_reduce, all_gather, ...
enum class CollectiveKind : uint8_t {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  SendRecv,
  Broadcast,
  Reduce,
  Other,
};

llvm::StringRef toString(CollectiveKind K);
llvm::Optional<CollectiveKind> parseCollectiveKind(llvm::StringRef S);

/// How a collective moves its data. Default is the kind's usual algorithm
/// (resolveAlgorithm() in NetworkModel.h).
enum class Algorithm : uint8_t {
  Default,
  Ring,   ///< ring (all-reduce, all-gather, reduce-scatter) or pipelined
          ///< chain (broadcast, reduce)
  Tree,   ///< NCCL's double binary tree (all-reduce only)
  Direct, ///< every pair directly (all-to-all's pairwise exchange, send/recv)
};

llvm::StringRef toString(Algorithm A);
/// "ring", "tree", "direct" or "pairwise"; anything else (NCCL's collnet,
/// nvls, pat, which this model does not describe) is Default.
Algorithm parseAlgorithm(llvm::StringRef S);

/// Kind and algorithm from an NCCL (or RCCL) kernel or API name:
/// "ncclKernel_AllReduce_RING_LL_Sum_float",
/// "ncclDevKernel_AllGather_RING_LL", "nccl:all_reduce", ...
struct KernelCollective {
  CollectiveKind Kind = CollectiveKind::Other;
  Algorithm Alg = Algorithm::Default;
};
KernelCollective classifyCollectiveName(llvm::StringRef Name);

/// NCCL runs all-to-all (and gather, scatter) as grouped sends and
/// receives, so a kernel whose name says send_recv (or nothing) may be any
/// of them; the PyTorch op that launched it says which. Whether \p K, read
/// from a kernel name, should be asked of that op.
inline bool kindNeedsOp(CollectiveKind K) {
  return K == CollectiveKind::SendRecv || K == CollectiveKind::Other;
}

/// The kind an op around a collective kernel names ("nccl:all_to_all",
/// "c10d::alltoall_base_"); Other for an op that is not a collective's.
/// Only names with "nccl" or "c10d" count, so that a module named, say,
/// "reduce_head" says nothing.
CollectiveKind collectiveKindOfOp(llvm::StringRef OpName);

/// How many layers out from a kernel's own the op is looked for: enough
/// for PyTorch's nesting around a collective (c10d::alltoall_base_ >
/// record_param_comms > nccl:all_to_all).
constexpr unsigned MaxCollectiveOpDepth = 8;

} // namespace comm
} // namespace dd

#endif // DAYDREAM_COMM_COLLECTIVENAMES_H
