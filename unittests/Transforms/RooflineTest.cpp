//===- RooflineTest.cpp - Hand-worked roofline and GPU table cases --------===//

#include "daydream/Transforms/Roofline.h"
#include "daydream/Device/GpuSpecs.h"
#include "daydream/IR/Graph.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace dd;

namespace {

TEST(RooflineTest, WorkMovesWithTheRoofThatLimitsIt) {
  // 1 TFLOP/s and 1 GB/s: 1e12 FLOPs take 1 s, 1e9 bytes 1 s.
  // Compute-bound (2 s of FLOPs, 1 s of bytes): the compute factor alone.
  EXPECT_DOUBLE_EQ(rooflineFactor(2e12, 1e9, 1, 1, {0.25, 0.5}), 0.25);
  // Memory-bound (1 s, 4 s): the memory factor alone.
  EXPECT_DOUBLE_EQ(rooflineFactor(1e12, 4e9, 1, 1, {0.25, 0.5}), 0.5);
  // Balanced at 1 s each: halving bytes and quartering compute leaves the
  // memory roof limiting, at 0.5 s.
  EXPECT_DOUBLE_EQ(rooflineFactor(1e12, 1e9, 1, 1, {0.25, 0.5}), 0.5);
  // Compute-bound by 3x: a 0.5 compute factor and 2x memory slowdown meet
  // at max(0.5 * 3, 2 * 1) / 3.
  EXPECT_DOUBLE_EQ(rooflineFactor(3e12, 1e9, 1, 1, {0.5, 2}), 2.0 / 3);
  // Only the intensity matters: ten times the work, the same factor.
  EXPECT_DOUBLE_EQ(rooflineFactor(3e13, 1e10, 1, 1, {0.5, 2}), 2.0 / 3);
  EXPECT_TRUE(std::isnan(rooflineFactor(0, 0, 1, 1, {0.5, 0.5})));
}

TEST(RooflineTest, TheLatencyFloorMovesWithTheFloors) {
  // 10 us kernel, 1.4 us floor: 8.6 us of work at half, floor kept.
  EXPECT_EQ(scaleAboveFloor(10000, 1400, 1.0, 0.5), 1400 + 4300);
  // A kernel below the floor is latency throughout: a GPU with a 2.2 us
  // floor (2.2 / 1.4) makes a 1.4 us kernel 2.2 us whatever its peaks.
  EXPECT_EQ(scaleAboveFloor(1400, 1400, 2.2 / 1.4, 0.1), 2200);
  EXPECT_EQ(scaleAboveFloor(700, 1400, 2.2 / 1.4, 0.1), 1100);
  // No floor: plain scaling.
  EXPECT_EQ(scaleAboveFloor(1000, 0, 1.0, 0.25), 250);
}

TEST(GpuSpecsTest, EveryGpuHasThePeaksTheModelsNeed) {
  for (const GpuSpec &S : knownGpus()) {
    EXPECT_GT(S.Fp32Tflops, 0) << S.Name.str();
    EXPECT_GE(S.Fp16Tflops, S.Fp32Tflops) << S.Name.str();
    EXPECT_GT(S.MemoryBandwidthGBps, 0) << S.Name.str();
    EXPECT_GT(S.LinkGBps, 0) << S.Name.str();
    EXPECT_GT(S.LatencyFloorUs, 0) << S.Name.str();
    if (S.Tf32Tflops > 0)
      EXPECT_LT(S.Tf32Tflops, S.Fp16Tflops) << S.Name.str();
    if (S.Fp8Tflops > 0)
      EXPECT_GT(S.Fp8Tflops, S.Fp16Tflops) << S.Name.str();
    EXPECT_EQ(findGpuByShortName(S.Name), &S);
  }
}

TEST(GpuSpecsTest, PeaksFallBackToTheNextWiderPrecision) {
  const GpuSpec &V100 = *findGpuByShortName("v100");
  const GpuSpec &A100 = *findGpuByShortName("a100");
  const GpuSpec &H100 = *findGpuByShortName("h100");
  EXPECT_EQ(peakTflops(V100, DType::TF32), 15.7); // no TF32 on Volta
  EXPECT_EQ(peakTflops(A100, DType::TF32), 156);
  EXPECT_EQ(peakTflops(A100, DType::FP8), 312); // no FP8 on Ampere
  EXPECT_EQ(peakTflops(H100, DType::FP8), 1978.9);
  EXPECT_EQ(peakTflops(H100, DType::Unknown), 67);
}

TEST(GpuSpecsTest, DevicesAsTracesNameThem) {
  EXPECT_EQ(findGpu("NVIDIA A100-SXM4-80GB")->Name, "a100");
  // Longest match: an A100 is not an A10G.
  EXPECT_EQ(findGpu("NVIDIA A10G")->Name, "a10g");
  EXPECT_EQ(findGpu("NVIDIA L40S")->Name, "l40s");
  EXPECT_EQ(findGpu("NVIDIA L4")->Name, "l4");
  EXPECT_EQ(findGpu("NVIDIA GeForce RTX 4090")->Name, "rtx4090");
  EXPECT_EQ(findGpu("Quadro GP100")->Name, "p100");
  // One name, two parts: the memory tells (resnet_ddp_a100's device).
  EXPECT_EQ(findGpu("NVIDIA A100-PG509-200", 42297524224)->Name, "a100-40gb");
  EXPECT_EQ(findGpu("AMD Instinct MI325X")->Name, "mi325x");
  // ROCm's name says nothing; toy_mi250_rocm's 104 CUs and 64 GB do.
  Device D;
  D.Name = "AMD Radeon Graphics";
  D.SmCount = 104;
  D.MemoryBytes = 68702699520;
  ASSERT_NE(findDeviceGpu(D), nullptr);
  EXPECT_EQ(findDeviceGpu(D)->Name, "mi250");
  D.SmCount = 304;
  D.MemoryBytes = 256ull << 30;
  EXPECT_EQ(findDeviceGpu(D)->Name, "mi325x");
  D.SmCount = 7;
  EXPECT_EQ(findDeviceGpu(D), nullptr);
}

} // namespace
