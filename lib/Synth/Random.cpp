//===- Random.cpp - Seeded random numbers that every platform agrees on ---===//
//
// Integer-only distributions over std::mt19937_64 (see Random.h for why).
//
//===----------------------------------------------------------------------===//

#include "daydream/Synth/Random.h"

#include <algorithm>
#include <cassert>

using namespace dd::synth;

uint64_t dd::synth::splitMix64(uint64_t X) {
  X += 0x9e3779b97f4a7c15ull;
  X = (X ^ (X >> 30)) * 0xbf58476d1ce4e5b9ull;
  X = (X ^ (X >> 27)) * 0x94d049bb133111ebull;
  return X ^ (X >> 31);
}

int64_t Rng::uniformInt(int64_t Lo, int64_t Hi) {
  assert(Lo <= Hi && "empty range");
  uint64_t Range = uint64_t(Hi) - uint64_t(Lo);
  if (Range == UINT64_MAX)
    return int64_t(next());
  uint64_t N = Range + 1;
  // The largest multiple of N words: words at or above it would make the
  // low values of the range more likely.
  uint64_t Limit = UINT64_MAX - (UINT64_MAX % N + 1) % N;
  uint64_t W;
  do
    W = next();
  while (W > Limit);
  return int64_t(uint64_t(Lo) + W % N);
}

int64_t Rng::around(int64_t Mean, uint32_t SpreadPpm) {
  // Mean * Spread fits in 64 bits for any mean below 9 * 10^12 ns (2.5 h),
  // and 64-bit division is several times faster than 128-bit.
  int64_t D = Mean >= 0 && Mean < (int64_t(1) << 43)
                  ? int64_t(uint64_t(Mean) * SpreadPpm / 1000000)
                  : int64_t((__int128(Mean) * SpreadPpm) / 1000000);
  int64_t T = D ? (uniformInt(-D, D) + uniformInt(-D, D)) / 2 : 0;
  return std::max<int64_t>(1, Mean + T);
}

int64_t Rng::cpuGap(int64_t Mean) {
  if (Mean <= 0)
    return 0;
  if (chance(20000))
    return uniformInt(3 * Mean, 8 * Mean);
  return uniformInt(Mean / 2, Mean + Mean / 2);
}
