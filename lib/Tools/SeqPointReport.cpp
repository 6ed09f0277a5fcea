//===- SeqPointReport.cpp - dd-seqpoint's human and JSON reports ----------===//
//
// The text report leads with the answer (which iterations to profile, and
// how good the projection from them is), then the evidence that it beats
// profiling the same number of iterations the usual ways, then whatever
// was projected from the SeqPoints.
//
//===----------------------------------------------------------------------===//

#include "SeqPointReport.h"
#include "SeqPointTraces.h"
#include "ToolSupport.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace dd;
using namespace dd::seqpoint;

namespace {

std::string percent(double Fraction) {
  return llvm::formatv("{0:f2}%", Fraction * 100).str();
}

std::string signedPercent(double F) {
  std::string S = llvm::formatv("{0:f2}%", std::fabs(F) * 100).str();
  return (F < 0 ? "-" : "+") + S;
}

/// formatDuration, and seconds for the totals of whole runs.
std::string us(double Us) {
  if (Us >= 1e6)
    return llvm::formatv("{0:f3} s", Us / 1e6).str();
  return formatDuration(Us * 1e3);
}

double fractionOfRun(const SeqPointReport &R) {
  return double(R.Sel->Bins.size()) / double(R.Run->size());
}

void printSeqPoints(const SeqPointReport &R, llvm::raw_ostream &OS) {
  const RunProfile &Run = *R.Run;
  OS << llvm::formatv("{0,10} {1,10} {2,17} {3,8} {4,12}\n", "iteration",
                      "length", "lengths in bin", "weight", "time");
  for (const SeqPointBin &B : R.Sel->Bins) {
    std::string Range =
        B.MinKey == B.MaxKey
            ? std::to_string(B.MinKey)
            : llvm::formatv("{0}-{1}", B.MinKey, B.MaxKey).str();
    OS << llvm::formatv("{0,10} {1,10} {2,17} {3,8} {4,12}\n",
                        Run.iteration(B.Rep), B.Key, Range, B.Weight,
                        Run.hasTime(B.Rep) ? us(Run.timeUs(B.Rep)) : "-");
  }
}

void printComparison(const SeqPointReport &R, llvm::raw_ostream &OS) {
  const BaselineComparison &C = *R.Comparison;
  OS << "\nprofiling " << C.N << " iterations, error of the " << C.Profiled
     << " profiled iterations' total:\n";
  OS << llvm::formatv("  {0,-12} {1,8}\n", "SeqPoint",
                      signedPercent(R.Sel->ProfiledError));
  OS << llvm::formatv("  {0,-12} {1,8}\n",
                      llvm::formatv("first {0}", C.N).str(),
                      signedPercent(C.FirstNError));
  OS << llvm::formatv(
      "  {0,-12} {1,8} median |error|, {2} worst, over {3} "
      "draws (seed {4})\n",
      llvm::formatv("random {0}", C.N).str(), percent(C.randomMedianAbsError()),
      percent(C.randomWorstAbsError()), C.RandomErrors.size(), C.Seed);
}

void printOtherRun(const OtherRunProjection &O, const SeqPointReport &R,
                   llvm::raw_ostream &OS) {
  OS << "\nother run: " << O.Source << "\n";
  OS << "  projected: " << us(O.ProjectedUs) << "\n";
  if (O.MeasuredUs >= 0)
    OS << "  measured:  " << us(O.MeasuredUs) << " (error "
       << signedPercent((O.ProjectedUs - O.MeasuredUs) / O.MeasuredUs) << ")\n";
  OS << llvm::formatv("  speedup {0} -> other: projected {1:f4}x",
                      R.Run->source(), O.ProjectedSpeedup);
  if (O.MeasuredSpeedup > 0)
    OS << llvm::formatv(", measured {0:f4}x (error {1})", O.MeasuredSpeedup,
                        signedPercent((O.ProjectedSpeedup - O.MeasuredSpeedup) /
                                      O.MeasuredSpeedup));
  OS << "\n";
}

void printTraces(const TraceProjection &T, llvm::raw_ostream &OS) {
  OS << "\nprojection from the SeqPoints' traces, pipeline '" << T.Pipeline
     << "':\n";
  OS << llvm::formatv("{0,10} {1,8} {2,12} {3,12} {4,12} {5,8}  {6}\n",
                      "iteration", "weight", "recorded", "simulated",
                      "optimized", "speedup", "trace");
  for (const SeqPointTrace &P : T.Points)
    OS << llvm::formatv(
        "{0,10} {1,8} {2,12} {3,12} {4,12} {5,8}  {6}\n", P.Iteration, P.Weight,
        P.RecordedUs >= 0 ? us(P.RecordedUs) : "-", us(P.BaselineUs),
        us(P.OptimizedUs),
        llvm::formatv("{0:f3}x",
                      P.OptimizedUs > 0 ? P.BaselineUs / P.OptimizedUs : 0.0),
        P.Path);
  OS << "run: simulated " << us(T.BaselineUs) << ", optimized "
     << us(T.OptimizedUs) << llvm::formatv(", speedup {0:f3}x\n", T.speedup());
}

} // namespace

void dd::printSeqPointText(const SeqPointReport &R, llvm::raw_ostream &OS) {
  const RunProfile &Run = *R.Run;
  const Selection &S = *R.Sel;
  OS << "run: " << Run.source() << ": " << Run.size() << " iterations, "
     << R.Proj.Profiled << " with a measured " << R.Time
     << "; length: " << R.Length << " (" << S.DistinctKeys << " distinct)\n";
  OS << "SeqPoints: " << S.Bins.size() << " (" << percent(fractionOfRun(R))
     << " of the iterations, " << llvm::formatv("{0:f1}", 1 / fractionOfRun(R))
     << "x fewer to profile); ";
  if (R.Fixed)
    OS << "fixed by -seqpoints";
  else if (S.Converged)
    OS << "profiled error " << signedPercent(S.ProfiledError)
       << ", within the threshold " << percent(R.Threshold);
  else
    OS << "profiled error " << signedPercent(S.ProfiledError)
       << ", the smallest found: the threshold " << percent(R.Threshold)
       << " was not reached";
  OS << "\n";
  printSeqPoints(R, OS);
  if (R.Proj.ProjectedUs >= 0)
    OS << "projected: " << us(R.Proj.ProjectedUs) << "\n";
  if (R.Proj.MeasuredUs >= 0) {
    OS << "measured:  " << us(R.Proj.MeasuredUs);
    if (R.Proj.ProjectedUs >= 0 && R.Proj.MeasuredUs > 0)
      OS << " (error "
         << signedPercent((R.Proj.ProjectedUs - R.Proj.MeasuredUs) /
                          R.Proj.MeasuredUs)
         << ")";
    OS << "\n";
  }
  if (R.Comparison)
    printComparison(R, OS);
  if (R.Other)
    printOtherRun(*R.Other, R, OS);
  if (R.Traces)
    printTraces(*R.Traces, OS);
}

void dd::printSeqPointJson(const SeqPointReport &R, llvm::raw_ostream &OS) {
  const RunProfile &Run = *R.Run;
  const Selection &S = *R.Sel;
  llvm::json::OStream J(OS, 2);
  auto OrNull = [&](llvm::StringRef Key, bool Known, double V) {
    if (Known)
      J.attribute(Key, V);
    else
      J.attribute(Key, nullptr);
  };
  auto Error = [](double Projected, double Measured) {
    return (Projected - Measured) / Measured;
  };
  J.object([&] {
    J.attribute("input", Run.source());
    J.attribute("iterations", int64_t(Run.size()));
    J.attribute("profiled_iterations", int64_t(R.Proj.Profiled));
    J.attribute("length", R.Length);
    J.attribute("time", R.Time);
    J.attribute("distinct_lengths", int64_t(S.DistinctKeys));
    J.attribute("threshold", R.Threshold);
    J.attribute("converged", S.Converged);
    J.attributeArray("seqpoints", [&] {
      for (const SeqPointBin &B : S.Bins)
        J.object([&] {
          J.attribute("iteration", Run.iteration(B.Rep));
          J.attribute("weight", int64_t(B.Weight));
          J.attribute("length", B.Key);
          J.attributeArray("lengths", [&] {
            for (int64_t L : Run.lengths(B.Rep))
              J.value(L);
          });
          J.attribute("min_length", B.MinKey);
          J.attribute("max_length", B.MaxKey);
          OrNull("time_us", Run.hasTime(B.Rep), Run.timeUs(B.Rep));
        });
    });
    bool Projected = R.Proj.ProjectedUs >= 0, Measured = R.Proj.MeasuredUs > 0;
    OrNull("projected_us", Projected, R.Proj.ProjectedUs);
    OrNull("measured_us", R.Proj.MeasuredUs >= 0, R.Proj.MeasuredUs);
    OrNull("error", Projected && Measured,
           Error(R.Proj.ProjectedUs, R.Proj.MeasuredUs));
    OrNull("profiled_error", R.Proj.Profiled > 0, S.ProfiledError);
    J.attribute("fraction", fractionOfRun(R));
    J.attribute("profiling_reduction", 1 / fractionOfRun(R));
    if (!R.Comparison) {
      J.attribute("comparison", nullptr);
    } else {
      const BaselineComparison &C = *R.Comparison;
      J.attributeObject("comparison", [&] {
        J.attribute("n", int64_t(C.N));
        J.attribute("profiled_iterations", int64_t(C.Profiled));
        J.attribute("seqpoint_error", S.ProfiledError);
        J.attribute("first_n_error", C.FirstNError);
        J.attributeObject("random_n", [&] {
          J.attribute("draws", int64_t(C.RandomErrors.size()));
          J.attribute("seed", int64_t(C.Seed));
          J.attribute("median_abs_error", C.randomMedianAbsError());
          J.attribute("worst_abs_error", C.randomWorstAbsError());
        });
      });
    }
    if (const OtherRunProjection *O = R.Other)
      J.attributeObject("other_run", [&] {
        bool Known = O->MeasuredUs > 0;
        J.attribute("input", O->Source);
        J.attribute("projected_us", O->ProjectedUs);
        OrNull("measured_us", O->MeasuredUs >= 0, O->MeasuredUs);
        OrNull("error", Known, Error(O->ProjectedUs, O->MeasuredUs));
        J.attribute("projected_speedup", O->ProjectedSpeedup);
        OrNull("measured_speedup", O->MeasuredSpeedup > 0, O->MeasuredSpeedup);
        OrNull("speedup_error", O->MeasuredSpeedup > 0,
               Error(O->ProjectedSpeedup, O->MeasuredSpeedup));
      });
    if (const TraceProjection *T = R.Traces)
      J.attributeObject("projection", [&] {
        J.attribute("pipeline", T->Pipeline);
        J.attribute("baseline_us", T->BaselineUs);
        J.attribute("optimized_us", T->OptimizedUs);
        J.attribute("speedup", T->speedup());
        J.attributeArray("seqpoints", [&] {
          for (const SeqPointTrace &P : T->Points)
            J.object([&] {
              J.attribute("iteration", P.Iteration);
              J.attribute("weight", int64_t(P.Weight));
              J.attribute("trace", P.Path);
              OrNull("recorded_us", P.RecordedUs >= 0, P.RecordedUs);
              J.attribute("baseline_us", P.BaselineUs);
              J.attribute("optimized_us", P.OptimizedUs);
            });
        });
      });
  });
  OS << "\n";
}
