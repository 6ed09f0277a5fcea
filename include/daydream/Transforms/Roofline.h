//===- Roofline.h - How a kernel's time moves with the roofs -----*- C++
//-*-===//
//
// A kernel's time is a fixed latency (launch on the device, ramp-up, tail:
// the floor the smallest kernels sit at) plus work under one of two roofs:
// its FLOPs over the arithmetic peak of its precision, or its bytes over
// the memory bandwidth, whichever is longer (Williams et al., "Roofline",
// CACM 2009). A what-if changes a roof (another GPU, half the bytes, tensor
// cores) by a factor; the kernel's work moves with the roof that limits it
// for its FLOPs and bytes, and its latency moves with the floor. Only the
// ratio of FLOPs to bytes matters, so work split among an op's kernels
// keeps its meaning. docs/CostModels.md derives each factor.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TRANSFORMS_ROOFLINE_H
#define DAYDREAM_TRANSFORMS_ROOFLINE_H

#include <cstdint>

namespace dd {

/// Duration factors of the two roofs: new time under the roof over old.
struct RoofFactors {
  double Compute = 1.0;
  double Memory = 1.0;
};

/// The factor of work with \p Flops and \p Bytes on a device with
/// \p PeakTflops for its precision and \p BandwidthGBps when the roofs
/// change by \p F: max(c*x, m*y) / max(x, y) for x = Flops / peak and
/// y = Bytes / bandwidth. With neither known (both 0), the caller's class
/// factor applies instead; this returns NaN to say so.
double rooflineFactor(double Flops, double Bytes, double PeakTflops,
                      double BandwidthGBps, RoofFactors F);

/// A duration \p DurationNs whose first \p FloorNs are latency, scaled by
/// \p FloorFactor, and whose rest is work, scaled by \p WorkFactor. A
/// kernel shorter than the floor is latency throughout.
int64_t scaleAboveFloor(int64_t DurationNs, double FloorNs, double FloorFactor,
                        double WorkFactor);

} // namespace dd

#endif // DAYDREAM_TRANSFORMS_ROOFLINE_H
