//===- ParameterSizes.cpp - The model's parameter bytes, as recorded ------===//
//
// One sweep over the notes: the input-dims and input-types of each
// AccumulateGrad op, the first tensor of each (the gradient), summed per
// iteration.
//
//===----------------------------------------------------------------------===//

#include "ParameterSizes.h"

#include "daydream/IR/Graph.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <map>

using namespace dd;

unsigned dd::elementBytes(llvm::StringRef Type) {
  Type.consume_front("c10::");
  return llvm::StringSwitch<unsigned>(Type)
      .Cases("float", "Float", 4)
      .Cases("double", "Double", 8)
      .Cases("Half", "BFloat16", 2)
      .Cases("long int", "Long", "int64_t", 8)
      .Cases("int", "Int", 4)
      .Cases("Float8_e4m3fn", "Float8_e5m2", 1)
      .Default(0);
}

namespace {

/// The element count of the first shape of "[[64, 3, 7, 7], []]"; 0 if it
/// has none.
uint64_t firstShapeElements(llvm::StringRef Dims) {
  Dims = Dims.trim();
  if (!Dims.consume_front("[") || !Dims.consume_front("["))
    return 0;
  llvm::StringRef Shape = Dims.take_until([](char C) { return C == ']'; });
  uint64_t N = 1;
  bool Any = false;
  while (!Shape.trim().empty()) {
    auto [Head, Rest] = Shape.split(',');
    uint64_t D;
    if (Head.trim().getAsInteger(10, D))
      return 0;
    N *= D;
    Any = true;
    Shape = Rest;
  }
  return Any ? N : 1; // [] is a scalar
}

/// The first type of "[\"float\", \"Scalar\"]".
llvm::StringRef firstType(llvm::StringRef Types) {
  size_t Open = Types.find('"');
  if (Open == llvm::StringRef::npos)
    return {};
  llvm::StringRef Rest = Types.drop_front(Open + 1);
  return Rest.take_until([](char C) { return C == '"'; });
}

} // namespace

llvm::Optional<RecordedParameters> dd::recordedParameters(const Graph &G) {
  // Names compared once per distinct string, not once per note.
  llvm::DenseMap<StrId, bool> IsAccumulate;
  llvm::DenseMap<TaskId, std::pair<uint64_t, unsigned>> Ops;
  for (const TaskNote &N : G.notes()) {
    if (N.Task >= G.numTaskSlots() || !G.isLive(N.Task))
      continue;
    llvm::StringRef Key = G.str(N.Key);
    if (Key != "input-dims" && Key != "input-types")
      continue;
    StrId Name = G.task(N.Task).Name;
    auto [It, New] = IsAccumulate.try_emplace(Name, false);
    if (New)
      It->second = G.str(Name) == "torch::autograd::AccumulateGrad";
    if (!It->second)
      continue;
    auto &Entry = Ops[N.Task];
    if (Key == "input-dims")
      Entry.first = firstShapeElements(G.str(N.Value));
    else
      Entry.second = elementBytes(firstType(G.str(N.Value)));
  }
  std::vector<int64_t> Starts;
  for (const Iteration &I : G.iterations())
    Starts.push_back(I.StartNs);
  std::sort(Starts.begin(), Starts.end());
  std::map<int64_t, RecordedParameters> PerStep;
  for (const auto &[T, Entry] : Ops) {
    if (!Entry.first)
      continue;
    // An op without its type is taken as fp32, the type of parameters
    // unless the model was converted.
    uint64_t Bytes = Entry.first * (Entry.second ? Entry.second : 4);
    int64_t Step =
        std::upper_bound(Starts.begin(), Starts.end(), G.task(T).StartNs) -
        Starts.begin();
    RecordedParameters &P = PerStep[Step];
    P.Bytes += Bytes;
    ++P.Count;
  }
  if (PerStep.empty())
    return llvm::None;
  RecordedParameters Best;
  for (const auto &[Step, P] : PerStep)
    if (P.Count > Best.Count || (P.Count == Best.Count && P.Bytes > Best.Bytes))
      Best = P;
  return Best;
}
