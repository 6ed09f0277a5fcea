//===- CollectiveNames.cpp - What a collective is called ------------------===//
//
// Spellings and kernel-name reading only; see CollectiveNames.h.
//
//===----------------------------------------------------------------------===//

#include "daydream/Comm/CollectiveNames.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <string>

using namespace dd;
using namespace dd::comm;
using llvm::StringRef;

static const StringRef KindNames[] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all",
    "send_recv",  "broadcast",  "reduce",         "other"};

StringRef comm::toString(CollectiveKind K) { return KindNames[size_t(K)]; }

llvm::Optional<CollectiveKind> comm::parseCollectiveKind(StringRef S) {
  for (size_t I = 0; I != std::size(KindNames); ++I)
    if (S == KindNames[I])
      return CollectiveKind(I);
  return llvm::None;
}

StringRef comm::toString(Algorithm A) {
  switch (A) {
  case Algorithm::Default:
    return "default";
  case Algorithm::Ring:
    return "ring";
  case Algorithm::Tree:
    return "tree";
  case Algorithm::Direct:
    return "direct";
  }
  return "default";
}

Algorithm comm::parseAlgorithm(StringRef S) {
  return llvm::StringSwitch<Algorithm>(S.lower())
      .Case("ring", Algorithm::Ring)
      .Case("tree", Algorithm::Tree)
      .Cases("direct", "pairwise", Algorithm::Direct)
      .Default(Algorithm::Default);
}

KernelCollective comm::classifyCollectiveName(StringRef Name) {
  // Words of the lower-cased name: "ncclkernel", "allreduce", "ring", ...;
  // the kind is read from the name without separators, so that
  // "all_reduce" and "AllReduce" read alike.
  std::string Lower = Name.lower();
  std::string Joined;
  llvm::SmallVector<StringRef, 8> Words;
  StringRef Rest = Lower;
  while (!Rest.empty()) {
    size_t Begin = Rest.find_if(llvm::isAlnum);
    if (Begin == StringRef::npos)
      break;
    Rest = Rest.drop_front(Begin);
    size_t End = Rest.find_if_not(llvm::isAlnum);
    Words.push_back(Rest.take_front(End));
    Joined += Words.back().str();
    Rest = Rest.drop_front(std::min(End, Rest.size()));
  }
  StringRef J = Joined;
  KernelCollective C;
  // Longer names first: "allreduce" and "reducescatter" hold "reduce".
  const std::pair<const char *, CollectiveKind> Kinds[] = {
      {"allreduce", CollectiveKind::AllReduce},
      {"reducescatter", CollectiveKind::ReduceScatter},
      {"allgather", CollectiveKind::AllGather},
      {"alltoall", CollectiveKind::AllToAll},
      {"sendrecv", CollectiveKind::SendRecv},
      {"send", CollectiveKind::SendRecv},
      {"recv", CollectiveKind::SendRecv},
      {"broadcast", CollectiveKind::Broadcast},
      {"reduce", CollectiveKind::Reduce}};
  for (const auto &[Text, Kind] : Kinds)
    if (J.contains(Text)) {
      C.Kind = Kind;
      break;
    }
  for (StringRef W : Words)
    if (W == "ring" || W == "tree") {
      C.Alg = parseAlgorithm(W);
      break;
    }
  return C;
}

CollectiveKind comm::collectiveKindOfOp(StringRef OpName) {
  std::string Lower = OpName.lower();
  if (!StringRef(Lower).contains("nccl") && !StringRef(Lower).contains("c10d"))
    return CollectiveKind::Other;
  return classifyCollectiveName(Lower).Kind;
}
