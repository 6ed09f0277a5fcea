//===- Random.h - Seeded random numbers all platforms agree on --*- C++ -*-===//
//
// dd-synth promises the same bytes for the same options on any machine, so
// its randomness cannot come from std::uniform_int_distribution and friends,
// whose algorithms each standard library chooses for itself, nor from libm's
// log or cos, which may differ in the last bit. The engine is
// std::mt19937_64, whose output the standard fixes; every distribution here
// is integer arithmetic on its 64-bit words (and the one double, uniform01,
// is exact), so a seed gives the same numbers everywhere.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SYNTH_RANDOM_H
#define DAYDREAM_SYNTH_RANDOM_H

#include <cstdint>
#include <random>

namespace dd::synth {

/// One 64-bit word of SplitMix64 from \p X: a bijection that scatters close
/// inputs far apart, to derive independent seeds from (seed, purpose).
uint64_t splitMix64(uint64_t X);

/// The seed of stream \p Stream of a run seeded with \p Seed (a rank, the
/// collectives' transfer times, ...).
inline uint64_t deriveSeed(uint64_t Seed, uint64_t Stream) {
  return splitMix64(splitMix64(Seed) ^ splitMix64(Stream + 0x5eed));
}

class Rng {
public:
  explicit Rng(uint64_t Seed) : Engine(Seed) {}

  /// The engine's next word.
  uint64_t next() { return Engine(); }

  /// Uniform in [Lo, Hi], both included (Lo <= Hi); unbiased, by rejecting
  /// the words of the last incomplete run of the range.
  int64_t uniformInt(int64_t Lo, int64_t Hi);

  /// Uniform in [0, 1) on a grid of 2^-53: the top 53 bits of a word.
  double uniform01() { return double(next() >> 11) * 0x1.0p-53; }

  /// True with probability \p PerMillion / 10^6.
  bool chance(uint32_t PerMillion) {
    return uniformInt(0, 999999) < int64_t(PerMillion);
  }

  /// About \p Mean: Mean * (1 + s * t), where s = \p SpreadPpm / 10^6 and t
  /// is triangular on [-1, 1] (the mean of two uniforms), rounded to an
  /// integer and at least 1. A kernel's time varies this way from run to
  /// run: a few percent, rarely the whole spread.
  int64_t around(int64_t Mean, uint32_t SpreadPpm);

  /// Untraced CPU time (Python, the framework) of mean about \p Mean: mostly
  /// uniform on [Mean/2, 3 Mean/2], and one time in fifty a stall of 3 to 8
  /// times the mean (garbage collection, an allocator call, a page fault).
  int64_t cpuGap(int64_t Mean);

private:
  std::mt19937_64 Engine;
};

} // namespace dd::synth

#endif // DAYDREAM_SYNTH_RANDOM_H
