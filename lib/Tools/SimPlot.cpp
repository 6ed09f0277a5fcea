//===- SimPlot.cpp - Baseline and prediction as a picture -----------------===//
//
// The breakdown is one sweep over the GPU work's start and end points,
// sorted once; the picture is written by hand as SVG text (a few rects and
// labels), with a fixed layout so that the tests can pin it.
//
//===----------------------------------------------------------------------===//

#include "SimPlot.h"
#include "ToolSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace dd;

namespace {

/// \p S as XML character data: markup characters escaped, and control
/// characters, which XML 1.0 cannot hold even as references, shown as
/// U+FFFD, so that a kernel name holding one still gives a well-formed SVG.
/// (Graph strings are UTF-8; the verifier has checked that.)
void printXmlText(llvm::StringRef S, llvm::raw_ostream &OS) {
  size_t Run = 0;
  for (size_t I = 0, E = S.size(); I != E; ++I) {
    if (static_cast<unsigned char>(S[I]) >= 0x20)
      continue;
    llvm::printHTMLEscaped(S.slice(Run, I), OS);
    OS << "\xEF\xBF\xBD";
    Run = I + 1;
  }
  llvm::printHTMLEscaped(S.drop_front(Run), OS);
}

/// The first \p N bytes of \p S, shortened so as not to split a UTF-8
/// character (whose later bytes are 10xxxxxx).
llvm::StringRef takeUtf8Prefix(llvm::StringRef S, size_t N) {
  if (N >= S.size())
    return S;
  while (N > 0 && (static_cast<unsigned char>(S[N]) & 0xC0) == 0x80)
    --N;
  return S.take_front(N);
}

const char *const ClassNames[NumGpuActivityClasses] = {
    "backward",       "forward",       "optimizer",
    "other GPU work", "communication", "idle"};
const char *const ClassColors[NumGpuActivityClasses] = {
    "#d95f02", "#1b9e77", "#7570b3", "#a6761d", "#e7298a", "#d9d9d9"};

/// The class of a live GPU task; Idle for work that is not on a GPU.
GpuActivityClass classOf(const Graph &G, TaskId T) {
  const Task &Tk = G.task(T);
  if (!isGpuWork(Tk.Kind))
    return GpuActivityClass::Idle;
  if (Tk.Kind == TaskKind::Collective ||
      G.lane(Tk.Lane).Kind == LaneKind::CommChannel)
    return GpuActivityClass::Communication;
  switch (Tk.Phase) {
  case Phase::Backward:
    return GpuActivityClass::Backward;
  case Phase::Forward:
    return GpuActivityClass::Forward;
  case Phase::Optimizer:
    return GpuActivityClass::Optimizer;
  default:
    return GpuActivityClass::OtherGpu;
  }
}

/// Total kernel time by name in \p Run.
llvm::StringMap<int64_t> kernelTimes(const RunView &Run) {
  llvm::StringMap<int64_t> Times;
  const Graph &G = Run.graph();
  for (TaskId T = 0; T != G.numTaskSlots(); ++T)
    if (G.isLive(T) && G.task(T).Kind == TaskKind::Kernel)
      Times[G.str(G.task(T).Name)] += Run.end(T) - Run.start(T);
  return Times;
}

class SvgPlot {
public:
  SvgPlot(const RunView &Base, const RunView &Pred, unsigned TopKernels)
      : Runs{&Base, &Pred} {
    for (int I = 0; I < 2; ++I)
      Breakdowns[I] = breakDownTime(*Runs[I]);
    pickKernels(TopKernels);
  }
  void write(llvm::raw_ostream &OS);

private:
  static constexpr int Width = 1000, Left = 215, BarWidth = 600;
  void pickKernels(unsigned Top);
  void phases(llvm::raw_ostream &OS, int &Y);
  void kernels(llvm::raw_ostream &OS, int &Y);
  /// \p Title: what a viewer shows on hover (a name shortened in \p S).
  void text(llvm::raw_ostream &OS, int X, int Y, llvm::StringRef S,
            const char *Extra = "", llvm::StringRef Title = "") {
    OS << "<text x=\"" << X << "\" y=\"" << Y << "\"" << Extra << ">";
    if (!Title.empty()) {
      OS << "<title>";
      printXmlText(Title, OS);
      OS << "</title>";
    }
    printXmlText(S, OS);
    OS << "</text>\n";
  }
  void rect(llvm::raw_ostream &OS, double X, int Y, double W, int H,
            const char *Color) {
    OS << llvm::formatv("<rect x=\"{0:f2}\" y=\"{1}\" width=\"{2:f2}\" "
                        "height=\"{3}\" fill=\"{4}\"/>\n",
                        X, Y, W, H, Color);
  }

  const RunView *Runs[2];
  TimeBreakdown Breakdowns[2];
  /// (name, baseline time, predicted time), most time first.
  std::vector<std::tuple<std::string, int64_t, int64_t>> Kernels;
};

void SvgPlot::pickKernels(unsigned Top) {
  llvm::StringMap<int64_t> Base = kernelTimes(*Runs[0]);
  llvm::StringMap<int64_t> Pred = kernelTimes(*Runs[1]);
  llvm::StringMap<bool> Names;
  for (auto &KV : Base)
    Names[KV.getKey()] = true;
  for (auto &KV : Pred)
    Names[KV.getKey()] = true;
  for (auto &KV : Names) {
    llvm::StringRef N = KV.getKey();
    Kernels.emplace_back(N.str(), Base.lookup(N), Pred.lookup(N));
  }
  // The larger of the two times ranks a kernel; names break ties.
  std::sort(Kernels.begin(), Kernels.end(), [](const auto &A, const auto &B) {
    int64_t MA = std::max(std::get<1>(A), std::get<2>(A));
    int64_t MB = std::max(std::get<1>(B), std::get<2>(B));
    return MA != MB ? MA > MB : std::get<0>(A) < std::get<0>(B);
  });
  if (Kernels.size() > Top)
    Kernels.resize(Top);
}

void SvgPlot::phases(llvm::raw_ostream &OS, int &Y) {
  text(OS, 20, Y, "Run time by what the GPUs were doing",
       " font-weight=\"bold\"");
  Y += 16;
  int64_t Longest =
      std::max<int64_t>({Runs[0]->makespan(), Runs[1]->makespan(), 1});
  for (int I = 0; I < 2; ++I) {
    text(OS, 20, Y + 17, I == 0 ? "baseline" : "predicted");
    double X = Left;
    for (size_t C = 0; C != NumGpuActivityClasses; ++C) {
      double W = double(Breakdowns[I][C]) / Longest * BarWidth;
      rect(OS, X, Y, W, 24, ClassColors[C]);
      X += W;
    }
    text(OS, int(X) + 6, Y + 17, formatDuration(Runs[I]->makespan()));
    Y += 32;
  }
  // The legend with both runs' figures.
  for (size_t C = 0; C != NumGpuActivityClasses; ++C) {
    rect(OS, Left, Y, 12, 12, ClassColors[C]);
    text(OS, Left + 18, Y + 11,
         std::string(ClassNames[C]) + ": " + formatDuration(Breakdowns[0][C]) +
             " -> " + formatDuration(Breakdowns[1][C]));
    Y += 18;
  }
  Y += 14;
}

void SvgPlot::kernels(llvm::raw_ostream &OS, int &Y) {
  text(OS, 20, Y, "Kernels with the most time (baseline grey, predicted blue)",
       " font-weight=\"bold\"");
  Y += 12;
  int64_t Most = 1;
  for (const auto &K : Kernels)
    Most = std::max({Most, std::get<1>(K), std::get<2>(K)});
  for (const auto &[Name, Base, Pred] : Kernels) {
    // Demangled CUDA names start with their return type.
    llvm::StringRef Shown = llvm::StringRef(Name);
    Shown.consume_front("void ");
    llvm::StringRef Short = takeUtf8Prefix(Shown, 27);
    text(OS, 20, Y + 15,
         Short.size() < Shown.size() ? (Short + "...").str() : Short.str(),
         " font-size=\"11\"", Name);
    rect(OS, Left, Y + 2, double(Base) / Most * BarWidth, 9, "#999999");
    rect(OS, Left, Y + 12, double(Pred) / Most * BarWidth, 9, "#377eb8");
    text(OS, Left + BarWidth + 8, Y + 15,
         formatDuration(Base) + " -> " + formatDuration(Pred));
    Y += 26;
  }
}

void SvgPlot::write(llvm::raw_ostream &OS) {
  // Under the title: the pipelines that made the prediction, then the
  // steady-state step of each run.
  std::vector<std::string> Lines;
  for (const PipelineRun &P : Runs[1]->graph().metadata().Pipelines)
    Lines.push_back("what-if: " + P.Pipeline);
  int64_t Base = Runs[0]->steadyStepNs(), Pred = Runs[1]->steadyStepNs();
  if (Base > 0 && Pred > 0)
    Lines.push_back(
        llvm::formatv("steady-state step (median over complete steps): {0} "
                      "-> {1}, speedup {2:f3}x",
                      formatDuration(Base), formatDuration(Pred),
                      double(Base) / double(Pred))
            .str());
  int Height = 40 + 18 * int(Lines.size()) + 16 + 64 +
               18 * int(NumGpuActivityClasses) + 14 + 12 +
               26 * int(Kernels.size()) + 20;
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << Width
     << "\" height=\"" << Height << "\" font-family=\"sans-serif\" "
     << "font-size=\"12\">\n";
  rect(OS, 0, 0, Width, Height, "#ffffff");
  text(OS, 20, 24, Runs[0]->label() + "  vs.  " + Runs[1]->label(),
       " font-size=\"14\"");
  int Y = 42;
  for (const std::string &Line : Lines) {
    text(OS, 20, Y, Line);
    Y += 18;
  }
  Y += 8;
  phases(OS, Y);
  kernels(OS, Y);
  OS << "</svg>\n";
}

} // namespace

TimeBreakdown dd::breakDownTime(const RunView &Run) {
  const Graph &G = Run.graph();
  struct Point {
    int64_t Time;
    uint8_t Class;
    int8_t Delta; ///< +1 start, -1 end
  };
  std::vector<Point> Points;
  for (TaskId T = 0; T != G.numTaskSlots(); ++T) {
    if (!G.isLive(T))
      continue;
    GpuActivityClass C = classOf(G, T);
    if (C == GpuActivityClass::Idle || Run.end(T) <= Run.start(T))
      continue;
    Points.push_back({Run.start(T), uint8_t(C), +1});
    Points.push_back({Run.end(T), uint8_t(C), -1});
  }
  std::sort(Points.begin(), Points.end(),
            [](const Point &A, const Point &B) { return A.Time < B.Time; });
  TimeBreakdown Out{};
  int64_t Active[NumGpuActivityClasses] = {};
  int64_t Busy = 0;
  for (size_t I = 0; I != Points.size(); ++I) {
    Active[Points[I].Class] += Points[I].Delta;
    if (I + 1 == Points.size() || Points[I + 1].Time == Points[I].Time)
      continue;
    int64_t Span = Points[I + 1].Time - Points[I].Time;
    for (size_t C = 0; C + 1 != NumGpuActivityClasses; ++C)
      if (Active[C] > 0) {
        Out[C] += Span;
        Busy += Span;
        break;
      }
  }
  Out[size_t(GpuActivityClass::Idle)] =
      std::max<int64_t>(0, Run.makespan() - Busy);
  return Out;
}

void dd::writePlot(const RunView &Baseline, const RunView &Predicted,
                   llvm::raw_ostream &OS, unsigned TopKernels) {
  SvgPlot(Baseline, Predicted, TopKernels).write(OS);
}
