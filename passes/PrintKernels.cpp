//===- PrintKernels.cpp - What the cost models have to go on --------------===//
//
// print<kernels>{json=false}
//
// The kernel cost models (docs/CostModels.md) act per class and dtype, and
// per kernel where its FLOPs and bytes are known. This printer shows, for
// each class and dtype, the kernels' count and recorded time, their share
// of all kernel time, and the share of their time with known FLOPs and
// bytes (the rest moves by its class's roof), so a user can see what a
// prediction rests on before trusting it. Changes nothing.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/Graph.h"
#include "daydream/Pass/DeclarePass.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Transforms/KernelClass.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <array>

using namespace dd;

namespace {

struct PrintKernelsOptions {
  bool Json = false;
};

void declare(PassOptionParser &P, PrintKernelsOptions &O) {
  P.add("json", O.Json, "print JSON instead of text");
}

struct Row {
  uint64_t Count = 0;
  int64_t TimeNs = 0;
  int64_t WithWorkNs = 0; ///< of which with FLOPs or bytes known
  int64_t WithDTypeNs = 0;
};

using Table = std::array<std::array<Row, NumDTypes>, NumKernelClasses>;

class PrintKernels {
public:
  static constexpr const char *Name = "print<kernels>";
  static constexpr const char *Description =
      "Print GPU kernel time by class and dtype, and how much of it has known "
      "FLOPs and bytes";
  using OptionsT = PrintKernelsOptions;
  static constexpr auto Declare = &declare;
  static constexpr bool IsPrinter = true;

  explicit PrintKernels(PrintKernelsOptions O) : O(O) {}

  llvm::Expected<PreservedAnalyses> run(Graph &G, AnalysisManager &AM) {
    Table T{};
    Row All;
    KernelClassifier Classifier(G);
    for (TaskId Id = 0, E = G.numTaskSlots(); Id != E; ++Id) {
      if (!G.isLive(Id) || G.task(Id).Kind != TaskKind::Kernel)
        continue;
      const TaskAttrs *A = G.attrs(Id);
      unsigned D = A ? A->DType : 0;
      bool Work = A && (A->Flops != 0 || A->Bytes != 0);
      Row &R = T[unsigned(Classifier.classOf(Id))][D < NumDTypes ? D : 0];
      for (Row *X : {&R, &All}) {
        ++X->Count;
        X->TimeNs += G.task(Id).DurationNs;
        X->WithWorkNs += Work ? G.task(Id).DurationNs : 0;
        X->WithDTypeNs += D != 0 ? G.task(Id).DurationNs : 0;
      }
    }
    if (O.Json)
      printJson(T, All, AM.reportStream());
    else
      printText(T, All, AM.reportStream());
    return PreservedAnalyses::all();
  }

private:
  static double share(int64_t Part, int64_t Whole) {
    return Whole > 0 ? 100.0 * double(Part) / double(Whole) : 0;
  }

  static void printText(const Table &T, const Row &All, llvm::raw_ostream &OS) {
    OS << "print<kernels>: " << All.Count << " kernels, "
       << llvm::format("%.3f", double(All.TimeNs) / 1e6) << " ms\n";
    OS << "  class          dtype       count      time ms   share "
          "flops/bytes\n";
    for (unsigned C = 0; C != NumKernelClasses; ++C)
      for (unsigned D = 0; D != NumDTypes; ++D) {
        const Row &R = T[C][D];
        if (R.Count == 0)
          continue;
        OS << llvm::format("  %-14s %-8s %8llu %12.3f %6.1f%% %10.1f%%\n",
                           toString(KernelClass(C)).str().c_str(),
                           toString(DType(D)).str().c_str(),
                           (unsigned long long)R.Count, double(R.TimeNs) / 1e6,
                           share(R.TimeNs, All.TimeNs),
                           share(R.WithWorkNs, R.TimeNs));
      }
    OS << llvm::format("  kernel time with a known dtype %.1f%%, with "
                       "known FLOPs or bytes %.1f%%\n",
                       share(All.WithDTypeNs, All.TimeNs),
                       share(All.WithWorkNs, All.TimeNs));
  }

  static void printJson(const Table &T, const Row &All, llvm::raw_ostream &OS) {
    llvm::json::Array Rows;
    for (unsigned C = 0; C != NumKernelClasses; ++C)
      for (unsigned D = 0; D != NumDTypes; ++D) {
        const Row &R = T[C][D];
        if (R.Count == 0)
          continue;
        Rows.push_back(llvm::json::Object{{"class", toString(KernelClass(C))},
                                          {"dtype", toString(DType(D))},
                                          {"count", int64_t(R.Count)},
                                          {"time_ns", R.TimeNs},
                                          {"with_work_ns", R.WithWorkNs}});
      }
    llvm::json::Object Root{{"kernels", int64_t(All.Count)},
                            {"time_ns", All.TimeNs},
                            {"with_dtype_ns", All.WithDTypeNs},
                            {"with_work_ns", All.WithWorkNs},
                            {"rows", std::move(Rows)}};
    OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Root))) << "\n";
  }

  PrintKernelsOptions O;
};

} // namespace

PassInfo dd::passInfoOfPrintKernels() { return passInfo<PrintKernels>(); }
