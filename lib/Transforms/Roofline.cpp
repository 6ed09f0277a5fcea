//===- Roofline.cpp - How a kernel's time moves with the roofs ------------===//

#include "daydream/Transforms/Roofline.h"
#include "daydream/IR/TaskFieldBounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace dd;

double dd::rooflineFactor(double Flops, double Bytes, double PeakTflops,
                          double BandwidthGBps, RoofFactors F) {
  if (!(Flops > 0) && !(Bytes > 0))
    return std::numeric_limits<double>::quiet_NaN();
  // Seconds under each roof (the units cancel in the ratio).
  double X = PeakTflops > 0 ? std::max(0.0, Flops) / (PeakTflops * 1e12) : 0;
  double Y =
      BandwidthGBps > 0 ? std::max(0.0, Bytes) / (BandwidthGBps * 1e9) : 0;
  double Old = std::max(X, Y);
  if (!(Old > 0))
    return std::numeric_limits<double>::quiet_NaN();
  return std::max(F.Compute * X, F.Memory * Y) / Old;
}

int64_t dd::scaleAboveFloor(int64_t DurationNs, double FloorNs,
                            double FloorFactor, double WorkFactor) {
  double D = double(std::max<int64_t>(0, DurationNs));
  double Latency = std::min(D, std::max(0.0, FloorNs));
  double New = Latency * FloorFactor + (D - Latency) * WorkFactor;
  return roundNs(New);
}
