//===- ShortestDouble.h - The shortest text of a double that reads back --===//
//
// Part of the Daydream project.
//
//===----------------------------------------------------------------------===//
//
// Doubles written for a person and read back by a program (the text .ddir,
// a pass's options in a printed pipeline or its docs) are written as the
// shortest of %.15g, %.16g and %.17g that strtod reads back as the same
// value: "0.2", not "0.20000000000000001", and still exact.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SUPPORT_SHORTESTDOUBLE_H
#define DAYDREAM_SUPPORT_SHORTESTDOUBLE_H

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

namespace dd {

inline void printShortestDouble(llvm::raw_ostream &OS, double V) {
  char Buf[40];
  for (int Precision = 15; Precision <= 17; ++Precision) {
    std::snprintf(Buf, sizeof(Buf), "%.*g", Precision, V);
    if (std::strtod(Buf, nullptr) == V)
      break;
  }
  OS << Buf;
}

} // namespace dd

#endif // DAYDREAM_SUPPORT_SHORTESTDOUBLE_H
