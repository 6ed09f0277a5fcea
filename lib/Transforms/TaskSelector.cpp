//===- TaskSelector.cpp - Choose tasks by kind, name, lane, ... -----------===//
//
// Regex results are memoized per string id (NameMatcher.h), so a selector
// costs one regex match per distinct name and O(1) per task.
//
//===----------------------------------------------------------------------===//

#include "daydream/Transforms/TaskSelector.h"
#include "daydream/IR/Graph.h"
#include "daydream/Pass/AnalysisManager.h"
#include "daydream/Pass/PassOptions.h"
#include "daydream/Transforms/LayerChains.h"
#include "daydream/Transforms/NameMatcher.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

using namespace dd;
using llvm::Error;
using llvm::StringRef;

namespace {

/// Parses "a,b,c" (or "all") into enum values with \p ParseOne.
template <typename EnumT, typename ParseFnT>
Error parseList(StringRef S, std::vector<EnumT> &Out, ParseFnT ParseOne,
                StringRef What) {
  Out.clear();
  if (S == "all" || S.empty())
    return Error::success();
  llvm::SmallVector<StringRef, 8> Parts;
  S.split(Parts, ',');
  for (StringRef P : Parts) {
    auto V = ParseOne(P.trim());
    if (!V)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "unknown " + What + " '" + P + "'");
    Out.push_back(*V);
  }
  return Error::success();
}

template <typename EnumT>
void printList(llvm::raw_ostream &OS, const std::vector<EnumT> &V) {
  if (V.empty()) {
    OS << "all";
    return;
  }
  for (size_t I = 0; I != V.size(); ++I)
    OS << (I ? "," : "") << toString(V[I]);
}

} // namespace

void TaskSelector::declareOptions(PassOptionParser &P) {
  P.add(
      "kind", "task kinds to select, comma-separated, or all",
      [this](StringRef S) {
        return parseList(S, Kinds, parseTaskKind, "task kind");
      },
      [this](llvm::raw_ostream &OS) { printList(OS, Kinds); });
  P.add(
      "phase", "phases to select, comma-separated, or all",
      [this](StringRef S) { return parseList(S, Phases, parsePhase, "phase"); },
      [this](llvm::raw_ostream &OS) { printList(OS, Phases); });
  P.add("name", NameRegex, "regex the task name must contain a match of");
  P.add("lane", LaneRegex, "regex the lane name must contain a match of");
  P.add("layer", LayerRegex, "regex the layer name must contain a match of");
  P.add("within", WithinRegex,
        "regex that the name of some layer of the task's chain (an op or "
        "annotation it runs inside) must contain a match of");
  P.add(
      "class",
      "kernel classes to select (gemm, conv, elementwise, norm, reduction, "
      "optimizer, communication, copy, other), comma-separated, or all",
      [this](StringRef S) {
        return parseList(S, Classes, parseKernelClass, "kernel class");
      },
      [this](llvm::raw_ostream &OS) { printList(OS, Classes); });
  P.add("min-bytes", MinBytes,
        "select only tasks whose bytes attribute is at least this (0: any)");
}

Error TaskSelector::validate() const {
  if (MinBytes < 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "min-bytes must not be negative");
  for (const std::string *R :
       {&NameRegex, &LaneRegex, &LayerRegex, &WithinRegex}) {
    std::string Msg;
    if (!R->empty() && !llvm::Regex(*R).isValid(Msg))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "invalid regex '" + *R + "': " + Msg);
  }
  return Error::success();
}

std::vector<TaskId> TaskSelector::select(const Graph &G) const {
  bool KindOk[NumTaskKinds], PhaseOk[NumPhases];
  for (unsigned K = 0; K != NumTaskKinds; ++K)
    KindOk[K] = Kinds.empty() || llvm::is_contained(Kinds, TaskKind(K));
  for (unsigned P = 0; P != NumPhases; ++P)
    PhaseOk[P] = Phases.empty() || llvm::is_contained(Phases, Phase(P));
  NameMatcher Name(G, NameRegex), LaneName(G, LaneRegex),
      LayerName(G, LayerRegex);
  bool CheckLayer = !LayerRegex.empty();
  std::vector<LayerId> Within;
  if (!WithinRegex.empty())
    Within = nearestMatchingLayers(G, WithinRegex);
  bool ClassOk[NumKernelClasses];
  for (unsigned C = 0; C != NumKernelClasses; ++C)
    ClassOk[C] = Classes.empty() || llvm::is_contained(Classes, KernelClass(C));
  llvm::Optional<KernelClassifier> Classifier;
  if (!Classes.empty())
    Classifier.emplace(G);

  std::vector<TaskId> Out;
  for (TaskId T = 0, E = G.numTaskSlots(); T != E; ++T) {
    if (!G.isLive(T))
      continue;
    const Task &Tk = G.task(T);
    if (!KindOk[unsigned(Tk.Kind)] || !PhaseOk[unsigned(Tk.Phase)] ||
        !Name.matches(Tk.Name) || !LaneName.matches(G.lane(Tk.Lane).Name))
      continue;
    if (CheckLayer &&
        (Tk.Layer == NoId || !LayerName.matches(G.layer(Tk.Layer).Name)))
      continue;
    if (!Within.empty() && (Tk.Layer == NoId || Within[Tk.Layer] == NoId))
      continue;
    if (Classifier &&
        (!isGpuWork(Tk.Kind) || !ClassOk[unsigned(Classifier->classOf(T))]))
      continue;
    if (MinBytes) {
      const TaskAttrs *A = G.attrs(T);
      if (!A || A->Bytes < uint64_t(MinBytes))
        continue;
    }
    Out.push_back(T);
  }
  return Out;
}

std::vector<TaskId> TaskSelector::select(const Graph &G,
                                         AnalysisManager &AM) const {
  std::vector<TaskId> Out = select(G);
  AM.count("tasks selected", Out.size());
  if (Out.empty())
    AM.warning("the selection '" + describe() +
               "' matches no task; nothing was changed");
  return Out;
}

bool TaskSelector::selectsAll() const {
  return Kinds.empty() && Phases.empty() && Classes.empty() && !MinBytes &&
         NameRegex.empty() && LaneRegex.empty() && LayerRegex.empty() &&
         WithinRegex.empty();
}

std::string TaskSelector::describe() const {
  std::vector<std::string> Parts;
  auto List = [&](const char *Key, auto &Values) {
    if (Values.empty())
      return;
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    printList(OS << Key << '=', Values);
    Parts.push_back(OS.str());
  };
  List("kind", Kinds);
  List("phase", Phases);
  for (auto [Key, Regex] :
       {std::pair<const char *, const std::string *>{"name", &NameRegex},
        {"lane", &LaneRegex},
        {"layer", &LayerRegex},
        {"within", &WithinRegex}})
    if (!Regex->empty())
      Parts.push_back(std::string(Key) + "=" + *Regex);
  List("class", Classes);
  if (MinBytes)
    Parts.push_back("min-bytes=" + std::to_string(MinBytes));
  return Parts.empty() ? "every task" : llvm::join(Parts, " ");
}
