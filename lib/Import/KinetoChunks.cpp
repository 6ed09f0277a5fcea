//===- KinetoChunks.cpp - Cutting traceEvents into pieces -----------------===//
//
// Text scans only; see KinetoChunks.h for why a wrong answer is harmless.
//
//===----------------------------------------------------------------------===//

#include "KinetoChunks.h"

#include <cstring>

using llvm::StringRef;

static bool isSpace(char C) {
  return C == ' ' || C == '\t' || C == '\r' || C == '\n';
}

/// The offset of the first non-space at or after \p I.
static size_t skipSpace(StringRef Bytes, size_t I) {
  while (I < Bytes.size() && isSpace(Bytes[I]))
    ++I;
  return I;
}

size_t dd::import::kineto::findEventsArray(StringRef Bytes) {
  static constexpr StringRef Key = "\"traceEvents\"";
  size_t At = Bytes.find(Key);
  if (At == StringRef::npos)
    return StringRef::npos;
  size_t I = skipSpace(Bytes, At + Key.size());
  if (I >= Bytes.size() || Bytes[I] != ':')
    return StringRef::npos;
  I = skipSpace(Bytes, I + 1);
  if (I >= Bytes.size() || Bytes[I] != '[')
    return StringRef::npos;
  return I;
}

size_t dd::import::kineto::findEventBoundary(StringRef Bytes, size_t From) {
  const char *Begin = Bytes.data(), *End = Bytes.end();
  const char *P = Begin + std::min(From, Bytes.size());
  while (P < End) {
    P = static_cast<const char *>(std::memchr(P, '}', End - P));
    if (!P)
      return StringRef::npos;
    size_t Comma = skipSpace(Bytes, P - Begin + 1);
    if (Comma < Bytes.size() && Bytes[Comma] == ',') {
      size_t Open = skipSpace(Bytes, Comma + 1);
      if (Open < Bytes.size() && Bytes[Open] == '{')
        return Comma;
    }
    ++P;
  }
  return StringRef::npos;
}
