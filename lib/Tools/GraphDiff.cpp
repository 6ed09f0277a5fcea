//===- GraphDiff.cpp - Two runs compared by kernel class and layer --------===//
//
// One pass over each run's GPU work; layers are keyed by their full path so
// that the same module matches across two graphs, whose layer ids differ.
//
//===----------------------------------------------------------------------===//

#include "GraphDiff.h"
#include "ToolSupport.h"
#include "daydream/Sim/SteadyState.h"
#include "daydream/Transforms/KernelClass.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace dd;

namespace {

/// "outer/inner/innermost".
std::string layerPath(const Graph &G, LayerId L) {
  std::vector<llvm::StringRef> Names;
  for (; L != NoId; L = G.layer(L).Parent)
    Names.push_back(G.str(G.layer(L).Name));
  std::string Path;
  for (auto It = Names.rbegin(); It != Names.rend(); ++It)
    Path += (Path.empty() ? "" : "/") + It->str();
  return Path.empty() ? "(no layer)" : Path;
}

struct RunSums {
  double Total = 0;
  uint64_t Tasks = 0;
  double ByClass[NumKernelClasses] = {};
  uint64_t TasksByClass[NumKernelClasses] = {};
  llvm::StringMap<std::pair<double, uint64_t>> ByLayer;
};

RunSums sumRun(const RunView &Run) {
  const Graph &G = Run.graph();
  KernelClassifier Classes(G);
  std::vector<std::string> Paths(G.numLayers());
  for (LayerId L = 0; L != G.numLayers(); ++L)
    Paths[L] = layerPath(G, L);
  RunSums S;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T) {
    if (!G.isLive(T) || !isGpuWork(G.task(T).Kind))
      continue;
    double Time = double(Run.end(T) - Run.start(T));
    unsigned C = unsigned(Classes.classOf(T));
    S.Total += Time;
    ++S.Tasks;
    S.ByClass[C] += Time;
    ++S.TasksByClass[C];
    LayerId L = G.task(T).Layer;
    auto &Slot = S.ByLayer[L == NoId ? "(no layer)" : Paths[L]];
    Slot.first += Time;
    ++Slot.second;
  }
  return S;
}

/// "+12.3%", or "new" / "gone" / "-" where one side is zero.
std::string formatChange(double A, double B) {
  if (A == 0)
    return B == 0 ? "-" : "new";
  if (B == 0)
    return "gone";
  double Percent = (B - A) / A * 100;
  return llvm::formatv("{0}{1:f1}%", Percent > 0 ? "+" : "", Percent).str();
}

} // namespace

GraphDiff dd::diffRuns(const RunView &A, const RunView &B, unsigned TopLayers) {
  GraphDiff D;
  D.LabelA = A.label();
  D.LabelB = B.label();
  D.IterationsA = std::max<size_t>(1, A.graph().iterations().size());
  D.IterationsB = std::max<size_t>(1, B.graph().iterations().size());
  D.IterationA = double(A.steadyStepNs());
  D.IterationB = double(B.steadyStepNs());
  RunSums SA = sumRun(A), SB = sumRun(B);
  double NA = double(D.IterationsA), NB = double(D.IterationsB);
  D.Total = {"all GPU work", SA.Total / NA, SB.Total / NB, SA.Tasks, SB.Tasks};
  for (unsigned C = 0; C != NumKernelClasses; ++C)
    D.ByClass.push_back({toString(KernelClass(C)).str(), SA.ByClass[C] / NA,
                         SB.ByClass[C] / NB, SA.TasksByClass[C],
                         SB.TasksByClass[C]});
  llvm::StringMap<DiffRow> Layers;
  for (auto &KV : SA.ByLayer) {
    DiffRow &R = Layers[KV.getKey()];
    R.A = KV.getValue().first / NA;
    R.TasksA = KV.getValue().second;
  }
  for (auto &KV : SB.ByLayer) {
    DiffRow &R = Layers[KV.getKey()];
    R.B = KV.getValue().first / NB;
    R.TasksB = KV.getValue().second;
  }
  for (auto &KV : Layers) {
    KV.getValue().Key = KV.getKey().str();
    D.ByLayer.push_back(KV.getValue());
  }
  std::sort(D.ByLayer.begin(), D.ByLayer.end(),
            [](const DiffRow &X, const DiffRow &Y) {
              double MX = std::max(X.A, X.B), MY = std::max(Y.A, Y.B);
              return MX != MY ? MX > MY : X.Key < Y.Key;
            });
  if (D.ByLayer.size() > TopLayers)
    D.ByLayer.resize(TopLayers);
  return D;
}

void dd::printGraphDiffText(const GraphDiff &D, llvm::raw_ostream &OS) {
  OS << "A: " << D.LabelA << " (" << D.IterationsA << " iterations)\n"
     << "B: " << D.LabelB << " (" << D.IterationsB << " iterations)\n";
  if (D.IterationA >= 0 && D.IterationB >= 0)
    OS << "steady-state step (median over complete steps): "
       << formatDuration(D.IterationA) << " -> " << formatDuration(D.IterationB)
       << " (" << formatChange(D.IterationA, D.IterationB) << ")\n";
  auto Table = [&](llvm::StringRef Title, llvm::ArrayRef<DiffRow> Rows) {
    OS << "\n"
       << llvm::formatv("{0,-40} {1,14} {2,14} {3,9}\n", Title, "A per iter",
                        "B per iter", "change");
    for (const DiffRow &R : Rows) {
      if (R.TasksA == 0 && R.TasksB == 0)
        continue;
      llvm::StringRef Key = R.Key;
      std::string Shown =
          Key.size() > 40 ? "..." + Key.take_back(37).str() : Key.str();
      OS << llvm::formatv("{0,-40} {1,14} {2,14} {3,9}\n", Shown,
                          formatDuration(R.A), formatDuration(R.B),
                          formatChange(R.A, R.B));
    }
  };
  std::vector<DiffRow> Classes = {D.Total};
  Classes.insert(Classes.end(), D.ByClass.begin(), D.ByClass.end());
  Table("GPU time by kernel class", Classes);
  Table("GPU time by layer", D.ByLayer);
}

void dd::printGraphDiffJson(const GraphDiff &D, llvm::raw_ostream &OS) {
  llvm::json::OStream J(OS, 2);
  auto Row = [&](const DiffRow &R) {
    J.object([&] {
      J.attribute("key", R.Key);
      J.attribute("a_ns", R.A);
      J.attribute("b_ns", R.B);
      J.attribute("a_tasks", int64_t(R.TasksA));
      J.attribute("b_tasks", int64_t(R.TasksB));
    });
  };
  auto Optional = [&](llvm::StringRef Key, double V) {
    if (V < 0)
      J.attribute(Key, nullptr);
    else
      J.attribute(Key, V);
  };
  J.object([&] {
    J.attribute("a", D.LabelA);
    J.attribute("b", D.LabelB);
    J.attribute("a_iterations", int64_t(D.IterationsA));
    J.attribute("b_iterations", int64_t(D.IterationsB));
    J.attribute("iteration_rule", SteadyStateRule);
    Optional("a_iteration_ns", D.IterationA);
    Optional("b_iteration_ns", D.IterationB);
    J.attributeBegin("total");
    Row(D.Total);
    J.attributeEnd();
    J.attributeArray("by_class", [&] {
      for (const DiffRow &R : D.ByClass)
        Row(R);
    });
    J.attributeArray("by_layer", [&] {
      for (const DiffRow &R : D.ByLayer)
        Row(R);
    });
  });
  OS << "\n";
}

void dd::printGraphDiffCsv(const GraphDiff &D, llvm::raw_ostream &OS) {
  OS << "table,key,a_ns,b_ns,a_tasks,b_tasks\n";
  auto Row = [&](llvm::StringRef Table, const DiffRow &R) {
    OS << Table << ',' << csvField(R.Key) << ',' << llvm::format("%.0f", R.A)
       << ',' << llvm::format("%.0f", R.B) << ',' << R.TasksA << ',' << R.TasksB
       << "\n";
  };
  if (D.IterationA >= 0 && D.IterationB >= 0)
    OS << "step,steady-state step," << llvm::format("%.0f", D.IterationA) << ','
       << llvm::format("%.0f", D.IterationB) << ",,\n";
  Row("class", D.Total);
  for (const DiffRow &R : D.ByClass)
    Row("class", R);
  for (const DiffRow &R : D.ByLayer)
    Row("layer", R);
}
