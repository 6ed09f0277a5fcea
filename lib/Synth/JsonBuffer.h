//===- JsonBuffer.h - A fast append-only JSON text buffer -------*- C++ -*-===//
//
// llvm::json builds a value tree before writing it, and raw_ostream formats
// numbers through a general path; a trace of 10^7 events needs neither. This
// buffer appends literal text, integers and fixed-point decimals into a
// megabyte of memory and hands it to a stream when full. Private to
// lib/Synth.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_SYNTH_JSONBUFFER_H
#define DAYDREAM_LIB_SYNTH_JSONBUFFER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

namespace dd::synth {

class JsonBuffer {
public:
  explicit JsonBuffer(llvm::raw_ostream &OS)
      : OS(OS), Buf(new char[Capacity]) {}
  ~JsonBuffer() { flush(); }
  JsonBuffer(const JsonBuffer &) = delete;
  JsonBuffer &operator=(const JsonBuffer &) = delete;

  void flush() {
    OS.write(Buf.get(), Len);
    Len = 0;
  }

  /// Appends \p S as it is.
  JsonBuffer &operator<<(llvm::StringRef S) {
    if (Len + S.size() > Capacity) {
      flush();
      if (S.size() > Capacity) {
        OS.write(S.data(), S.size());
        return *this;
      }
    }
    std::memcpy(Buf.get() + Len, S.data(), S.size());
    Len += S.size();
    return *this;
  }
  JsonBuffer &operator<<(char C) {
    if (Len == Capacity)
      flush();
    Buf[Len++] = C;
    return *this;
  }
  /// A decimal integer.
  JsonBuffer &operator<<(int64_t V) {
    char Digits[24];
    char *End = Digits + sizeof(Digits), *P = End;
    uint64_t U = V < 0 ? 0 - uint64_t(V) : uint64_t(V);
    do
      *--P = char('0' + U % 10);
    while (U /= 10);
    if (V < 0)
      *--P = '-';
    return *this << llvm::StringRef(P, End - P);
  }
  JsonBuffer &operator<<(uint64_t V) {
    char Digits[24];
    char *End = Digits + sizeof(Digits), *P = End;
    do
      *--P = char('0' + V % 10);
    while (V /= 10);
    return *this << llvm::StringRef(P, End - P);
  }
  JsonBuffer &operator<<(int32_t V) { return *this << int64_t(V); }
  JsonBuffer &operator<<(uint32_t V) { return *this << uint64_t(V); }

  /// \p Units / 10^Digits in fixed point with exactly \p Digits decimals
  /// ("12.345" for 12345 and 3): how nanoseconds become the format's
  /// microseconds without a double, which would lose them.
  void fixed(int64_t Units, unsigned Digits) {
    uint64_t Scale = 1;
    for (unsigned I = 0; I != Digits; ++I)
      Scale *= 10;
    uint64_t U = Units < 0 ? 0 - uint64_t(Units) : uint64_t(Units);
    if (Units < 0)
      *this << '-';
    *this << U / Scale;
    char Frac[24];
    uint64_t F = U % Scale;
    for (unsigned I = Digits; I-- != 0; F /= 10)
      Frac[I] = char('0' + F % 10);
    *this << '.' << llvm::StringRef(Frac, Digits);
  }

  /// \p S as a JSON string, quotes included.
  static std::string quote(llvm::StringRef S) {
    std::string Out = "\"";
    for (char C : S) {
      switch (C) {
      case '"':
        Out += "\\\"";
        break;
      case '\\':
        Out += "\\\\";
        break;
      case '\n':
        Out += "\\n";
        break;
      case '\t':
        Out += "\\t";
        break;
      case '\r':
        Out += "\\r";
        break;
      default:
        if (uint8_t(C) < 0x20) {
          static const char Hex[] = "0123456789abcdef";
          Out += "\\u00";
          Out += Hex[uint8_t(C) >> 4];
          Out += Hex[uint8_t(C) & 15];
        } else {
          Out += C;
        }
      }
    }
    Out += '"';
    return Out;
  }

private:
  static constexpr size_t Capacity = size_t(1) << 20;
  llvm::raw_ostream &OS;
  std::unique_ptr<char[]> Buf;
  size_t Len = 0;
};

} // namespace dd::synth

#endif // DAYDREAM_LIB_SYNTH_JSONBUFFER_H
