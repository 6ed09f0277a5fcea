//===- TraceEvents.cpp - A run from a Kineto trace's events ---------------===//
//
// The project's Kineto front-end keeps no cpu_op arguments (the lowering
// needs none), so this reader picks out the two things SeqPoint needs
// itself: the ProfilerStep#N ranges, each an iteration timed by its
// duration, and the "Input Dims" of the CPU ops inside each step, on the
// step's own thread (the forward pass, which sees the batch as loaded;
// the autograd thread's ops follow from it).
//
// An input position is (op name, input index, dimension index), read from
// the first op of that name in the step. Which position is the sequence
// length is the user's to say; by default it is the first position, in the
// order the first step's ops come, that every step has and that does not
// have the same value in all of them: the first tensor shape the data
// changes, which in a sequence model is the batch's length.
//
//===----------------------------------------------------------------------===//

#include "TraceEvents.h"
#include "Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <map>

using namespace dd;
using namespace dd::seqpoint;
namespace dom = simdjson::dom;

namespace {

struct Step {
  int64_t Number;
  double Ts, Dur;
  std::string Thread;
};

struct Op {
  double Ts;
  size_t Order; ///< in the file, to break ties in Ts
  std::string Name;
  /// Input Dims: one shape per input; empty for a non-tensor input.
  std::vector<std::vector<int64_t>> Dims;
};

/// (op name, input, dim), ordered as the reader prefers them.
struct Position {
  std::string Op;
  unsigned Input, Dim;
  std::string describe() const {
    return Op + " input " + std::to_string(Input) + " dim " +
           std::to_string(Dim);
  }
};

/// pid and tid are numbers in most traces and strings in some.
std::string threadKey(dom::object Event) {
  std::string Key;
  for (const char *F : {"pid", "tid"}) {
    dom::element E;
    Key += Event.at_key(F).get(E) == simdjson::SUCCESS ? simdjson::minify(E)
                                                       : std::string("?");
    Key += '/';
  }
  return Key;
}

/// An input's shape, if it is a flat list of integers.
bool shape(dom::element E, std::vector<int64_t> &Out) {
  dom::array A;
  if (E.get(A) != simdjson::SUCCESS)
    return false;
  for (dom::element D : A) {
    int64_t V;
    if (D.get(V) != simdjson::SUCCESS)
      return false;
    Out.push_back(V);
  }
  return true;
}

struct Collected {
  std::vector<Step> Steps;
  /// CPU ops with Input Dims, by thread, sorted by (Ts, Order).
  std::map<std::string, std::vector<Op>> Ops;
};

llvm::Expected<Collected> collect(llvm::StringRef Name, dom::array Events) {
  Collected C;
  size_t Order = 0;
  for (dom::element E : Events) {
    dom::object Event;
    std::string_view Ph, EvName, Cat;
    if (E.get(Event) || Event["ph"].get(Ph) || Ph != "X" ||
        Event["name"].get(EvName))
      continue;
    double Ts;
    if (Event["ts"].get(Ts) != simdjson::SUCCESS)
      continue;
    llvm::StringRef N(EvName.data(), EvName.size());
    if (N.startswith("ProfilerStep#")) {
      double Dur;
      if (Event["dur"].get(Dur) != simdjson::SUCCESS)
        return makeError(Name + ": " + N + " has no duration");
      int64_t Number;
      if (N.drop_front(13).getAsInteger(10, Number))
        return makeError(Name + ": " + N + ": not a step number");
      C.Steps.push_back({Number, Ts, Dur, threadKey(Event)});
      continue;
    }
    if (Event["cat"].get(Cat) || (Cat != "cpu_op" && Cat != "Operator"))
      continue;
    dom::array Dims;
    if (Event.at_pointer("/args/Input Dims").get(Dims))
      continue;
    Op O{Ts, Order++, N.str(), {}};
    for (dom::element D : Dims) {
      O.Dims.emplace_back();
      if (!shape(D, O.Dims.back()))
        O.Dims.back().clear();
    }
    C.Ops[threadKey(Event)].push_back(std::move(O));
  }
  for (auto &KV : C.Ops)
    llvm::sort(KV.second, [](const Op &A, const Op &B) {
      return A.Ts != B.Ts ? A.Ts < B.Ts : A.Order < B.Order;
    });
  llvm::sort(C.Steps, [](const Step &A, const Step &B) {
    return A.Ts != B.Ts ? A.Ts < B.Ts : A.Number < B.Number;
  });
  return std::move(C);
}

/// The first op of each name in a step, in the order they come.
using FirstOps = std::vector<const Op *>;

FirstOps firstOps(const Collected &C, const Step &S) {
  FirstOps First;
  auto It = C.Ops.find(S.Thread);
  if (It == C.Ops.end())
    return First;
  const std::vector<Op> &Ops = It->second;
  auto Begin = std::lower_bound(Ops.begin(), Ops.end(), S.Ts,
                                [](const Op &O, double T) { return O.Ts < T; });
  llvm::StringMap<bool> Seen;
  for (auto I = Begin; I != Ops.end() && I->Ts < S.Ts + S.Dur; ++I)
    if (Seen.try_emplace(I->Name, true).second)
      First.push_back(&*I);
  return First;
}

/// The value at \p P in a step, if the step has it.
llvm::Optional<int64_t> valueAt(const FirstOps &Ops, const Position &P) {
  for (const Op *O : Ops) {
    if (O->Name != P.Op)
      continue;
    if (P.Input < O->Dims.size() && P.Dim < O->Dims[P.Input].size())
      return O->Dims[P.Input][P.Dim];
    return llvm::None;
  }
  return llvm::None;
}

/// The first position every step has whose value is not always the same.
llvm::Optional<Position> findLengthPosition(llvm::ArrayRef<FirstOps> Steps) {
  for (const Op *O : Steps.front())
    for (unsigned In = 0; In != O->Dims.size(); ++In)
      for (unsigned D = 0; D != O->Dims[In].size(); ++D) {
        Position P{O->Name, In, D};
        int64_t First = O->Dims[In][D];
        bool Everywhere = true, Varies = false;
        for (const FirstOps &S : Steps) {
          auto V = valueAt(S, P);
          Everywhere &= V.hasValue();
          if (!Everywhere)
            break;
          Varies |= *V != First;
        }
        if (Everywhere && Varies)
          return P;
      }
  return llvm::None;
}

} // namespace

llvm::Expected<RunProfile>
dd::seqpoint::readTraceEvents(llvm::StringRef Name, dom::array Events,
                              const TraceLengthOptions &Opts) {
  auto C = collect(Name, Events);
  if (!C)
    return C.takeError();
  if (C->Steps.empty())
    return makeError(Name + ": no ProfilerStep ranges (SeqPoint needs a "
                            "trace of several iterations)");
  std::vector<FirstOps> Steps;
  for (const Step &S : C->Steps)
    Steps.push_back(firstOps(*C, S));

  Position P{Opts.Op, Opts.Input, Opts.Dim};
  if (Opts.Op.empty()) {
    if (C->Steps.size() < 2)
      return makeError(Name + ": only one ProfilerStep (ProfilerStep#" +
                       llvm::Twine(C->Steps.front().Number) +
                       "): SeqPoint needs a run of at least two");
    auto Found = findLengthPosition(Steps);
    if (!Found)
      return makeError(Name + ": no input dimension of the CPU ops in every "
                              "ProfilerStep varies across steps; name the "
                              "sequence length with -length-op, "
                              "-length-input and -length-dim");
    P = *Found;
  }
  RunProfile Run(Name.str(), {P.describe()});
  for (size_t I = 0; I != Steps.size(); ++I) {
    auto V = valueAt(Steps[I], P);
    if (!V)
      return makeError(Name + ": ProfilerStep#" +
                       llvm::Twine(C->Steps[I].Number) + " has no " +
                       P.describe());
    if (*V < 0)
      return makeError(Name + ": ProfilerStep#" +
                       llvm::Twine(C->Steps[I].Number) + ": " + P.describe() +
                       " is negative");
    Run.add(C->Steps[I].Number, {*V}, C->Steps[I].Dur);
  }
  if (llvm::Error E = finishRun(Run, [&](size_t I) {
        return Name.str() + ": ProfilerStep#" +
               std::to_string(C->Steps[I].Number);
      }))
    return std::move(E);
  return std::move(Run);
}
