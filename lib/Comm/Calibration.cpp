//===- Calibration.cpp - Fit the network model to measured collectives ----===//
//
// Each level is a two-parameter linear least-squares problem,
//   y_k = h_k * alpha + b_k * x,     x = 1 / beta (ns per byte),
// solved from its normal equations; see Calibration.h for the fallbacks.
// Each sample weighs by the inverse square of its time, so that the fit
// minimizes relative errors: collectives of a few microseconds pin the
// latency and those of milliseconds the bandwidth, instead of the longest
// ones (whose recorded times also vary the most) deciding both.
//
//===----------------------------------------------------------------------===//

#include "daydream/Comm/Calibration.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <set>
#include <vector>

using namespace dd;
using namespace dd::comm;

namespace {

/// One sample as an equation of one level: Y = H * alpha + B * x, with
/// its weight W.
struct Row {
  double H, B, Y, W, Bytes;
};

/// Two parameters are told apart only if the rows weigh them differently;
/// below this share of the product of the diagonal the normal matrix is
/// taken to be singular (rounding leaves about 1e-16 of a collinear one).
constexpr double SingularShare = 1e-9;

LevelCalibration fitLevel(llvm::ArrayRef<Row> Rows, const Link &Default,
                          const std::string &DefaultWhat) {
  LevelCalibration C;
  C.L = Default;
  C.DefaultWhat = DefaultWhat;
  C.Samples = unsigned(Rows.size());
  std::set<double> Sizes;
  double Shh = 0, Sbb = 0, Shb = 0, Shy = 0, Sby = 0;
  for (const Row &R : Rows) {
    Sizes.insert(R.Bytes);
    Shh += R.W * R.H * R.H;
    Sbb += R.W * R.B * R.B;
    Shb += R.W * R.H * R.B;
    Shy += R.W * R.H * R.Y;
    Sby += R.W * R.B * R.Y;
  }
  C.Sizes = unsigned(Sizes.size());
  if (Rows.empty() || Sbb <= 0)
    return C;
  double Det = Shh * Sbb - Shb * Shb;
  double AlphaNs, X;
  LinkSource Source;
  if (Shh > 0 && Det > SingularShare * Shh * Sbb) {
    AlphaNs = (Sbb * Shy - Shb * Sby) / Det;
    X = (Shh * Sby - Shb * Shy) / Det;
    Source = LinkSource::Fitted;
    if (AlphaNs < 0) {
      AlphaNs = 0;
      X = Sby / Sbb;
      C.LatencyClamped = true;
    }
  } else {
    // One way of weighing them only: keep the default latency.
    AlphaNs = Default.LatencyUs * 1000;
    X = (Sby - AlphaNs * Shb) / Sbb;
    Source = LinkSource::BandwidthFitted;
  }
  if (!(X > 0)) {
    C.LatencyClamped = false;
    return C;
  }
  C.L = Link{1 / X, AlphaNs / 1000};
  C.Source = Source;
  return C;
}

/// Relative errors: 1 / t^2.
double weight(double TimeNs) { return 1 / (TimeNs * TimeNs); }

std::string figure(double V) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format("%.4g", V);
  return S;
}

std::string plural(unsigned N, const char *One, const char *Many) {
  return std::to_string(N) + " " + (N == 1 ? One : Many);
}

} // namespace

std::string LevelCalibration::describe() const {
  std::string Fit =
      plural(Samples, "distinct collective", "distinct collectives") + " of " +
      plural(Sizes, "size", "sizes");
  switch (Source) {
  case LinkSource::Fitted:
    return "fitted to " + Fit +
           (LatencyClamped ? " (the fit's latency was negative: 0 used)" : "");
  case LinkSource::BandwidthFitted:
    return "bandwidth fitted to " + Fit + ", latency default (" +
           figure(L.LatencyUs) + " us, " + DefaultWhat + ")";
  case LinkSource::Default:
    break;
  }
  if (Samples == 0)
    return "default, no measured collective: " + DefaultWhat;
  return "default, the " + Fit + " gave no positive bandwidth: " + DefaultWhat;
}

Calibration comm::calibrate(llvm::ArrayRef<Sample> Samples, int64_t GpusPerNode,
                            const DefaultLinks &Defaults) {
  std::vector<Row> IntraRows;
  std::vector<std::pair<CostTerms, Sample>> Spanning;
  for (const Sample &S : Samples) {
    if (!(S.Bytes > 0) || !(S.TimeNs > 0) || S.Ranks <= 1 ||
        S.Kind == CollectiveKind::Other)
      continue;
    CostTerms C = costTerms(S.Kind, S.Alg, S.Bytes, S.placement(GpusPerNode));
    if (C.IntraBytes > 0)
      IntraRows.push_back(
          Row{C.IntraHops, C.IntraBytes, S.TimeNs, weight(S.TimeNs), S.Bytes});
    else if (C.InterBytes > 0)
      Spanning.push_back({C, S});
  }
  Calibration Cal;
  Cal.T.GpusPerNode = GpusPerNode;
  Cal.T.Nodes = 1;
  Cal.Intra = fitLevel(IntraRows, Defaults.Intra, Defaults.IntraWhat);
  // The steps a spanning group takes inside its nodes, at the intra-node
  // latency just found.
  double IntraAlphaNs = Cal.Intra.L.LatencyUs * 1000;
  std::vector<Row> InterRows;
  InterRows.reserve(Spanning.size());
  for (const auto &[C, S] : Spanning)
    InterRows.push_back(Row{C.InterHops, C.InterBytes,
                            S.TimeNs - C.IntraHops * IntraAlphaNs,
                            weight(S.TimeNs), S.Bytes});
  Cal.Inter = fitLevel(InterRows, Defaults.Inter, Defaults.InterWhat);
  Cal.T.Intra = Cal.Intra.L;
  Cal.T.Inter = Cal.Inter.L;
  return Cal;
}
