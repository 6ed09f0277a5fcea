//===- Units.h - Times and sizes for people, one unit a report --*- C++ -*-===//
//
// Reports print times and sizes in one unit each, chosen from the report's
// largest figure, so that columns compare at a glance and a real trace
// reads in milliseconds and MiB, while a hand-made graph of a few hundred
// nanoseconds still reads in nanoseconds. JSON keeps raw nanoseconds and
// bytes.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SUPPORT_UNITS_H
#define DAYDREAM_SUPPORT_UNITS_H

#include <cstdint>
#include <string>

namespace dd {

class TimeUnit {
public:
  /// ms from 10 ms up, us from 10 us, ns below.
  static TimeUnit forSpan(int64_t LargestNs);
  /// "12.345 ms", "678.900 us", "90 ns"; "-" for a negative (unknown) time.
  std::string operator()(int64_t Ns) const;

private:
  TimeUnit(const char *Name, double NsPer) : Name(Name), NsPer(NsPer) {}
  const char *Name;
  double NsPer;
};

class SizeUnit {
public:
  /// MiB from 10 MiB up, KiB from 10 KiB, bytes below.
  static SizeUnit forSize(int64_t LargestBytes);
  /// "2662.3 MiB", "12.0 KiB", "512 bytes" (signed sizes print signed).
  std::string operator()(int64_t Bytes) const;

private:
  SizeUnit(const char *Name, double BytesPer)
      : Name(Name), BytesPer(BytesPer) {}
  const char *Name;
  double BytesPer;
};

} // namespace dd

#endif // DAYDREAM_SUPPORT_UNITS_H
