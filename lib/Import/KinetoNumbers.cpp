//===- KinetoNumbers.cpp - Exact decimal microseconds to nanoseconds ------===//
//
// Kineto writes times as decimal microseconds with up to three fraction
// digits ("ts": 1712195495505583.123). A double carries 53 bits, about 16
// significant digits, so that value as a double is already off by tens of
// nanoseconds; these parsers work on the number's text instead, scaling by a
// power of ten with integer arithmetic only.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/KinetoReader.h"

#include <limits>

using namespace dd::import;
using llvm::None;
using llvm::Optional;
using llvm::StringRef;

static bool isDigit(char C) { return C >= '0' && C <= '9'; }

/// The JSON number \p Tok times 10^Scale as an integer. With \p Exact, None
/// unless no nonzero digit is lost; otherwise rounded half away from zero.
static Optional<int64_t> parseScaled(StringRef Tok, int Scale, bool Exact) {
  Tok = Tok.rtrim(" \t\r\n");
  size_t I = 0, N = Tok.size();
  bool Neg = I < N && Tok[I] == '-';
  if (Neg)
    ++I;
  // The JSON grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  size_t IntBegin = I;
  if (I == N || !isDigit(Tok[I]))
    return None;
  if (Tok[I++] != '0')
    while (I < N && isDigit(Tok[I]))
      ++I;
  size_t IntLen = I - IntBegin, FracBegin = I, FracLen = 0;
  if (I < N && Tok[I] == '.') {
    FracBegin = ++I;
    while (I < N && isDigit(Tok[I]))
      ++I;
    FracLen = I - FracBegin;
    if (FracLen == 0)
      return None;
  }
  int64_t Exp = 0;
  if (I < N && (Tok[I] == 'e' || Tok[I] == 'E')) {
    ++I;
    bool ExpNeg = I < N && Tok[I] == '-';
    if (I < N && (Tok[I] == '-' || Tok[I] == '+'))
      ++I;
    if (I == N || !isDigit(Tok[I]))
      return None;
    // Saturate: any exponent past a few hundred over- or underflows int64
    // anyway, and saturating keeps the arithmetic below defined.
    for (; I < N && isDigit(Tok[I]); ++I)
      Exp = std::min<int64_t>(Exp * 10 + (Tok[I] - '0'), 1000000);
    if (ExpNeg)
      Exp = -Exp;
  }
  if (I != N)
    return None;

  // The value is Digits * 10^Shift, Digits being the integer digits followed
  // by the fraction digits.
  int64_t NumDigits = int64_t(IntLen + FracLen);
  int64_t Shift = Exp - int64_t(FracLen) + Scale;
  auto DigitAt = [&](int64_t K) -> unsigned {
    return K < int64_t(IntLen) ? Tok[IntBegin + K] - '0'
                               : Tok[FracBegin + K - IntLen] - '0';
  };
  int64_t Keep = Shift < 0 ? NumDigits + Shift : NumDigits;
  uint64_t V = 0;
  for (int64_t K = 0; K < Keep; ++K) {
    unsigned D = DigitAt(K);
    if (V > (std::numeric_limits<uint64_t>::max() - D) / 10)
      return None;
    V = V * 10 + D;
  }
  if (Shift < 0) {
    int64_t FirstDropped = std::max<int64_t>(Keep, 0);
    if (Exact) {
      for (int64_t K = FirstDropped; K < NumDigits; ++K)
        if (DigitAt(K) != 0)
          return None;
    } else if (Keep >= 0 && Keep < NumDigits && DigitAt(Keep) >= 5) {
      if (V == std::numeric_limits<uint64_t>::max())
        return None;
      ++V;
    }
  } else {
    for (int64_t S = 0; S < Shift && V != 0; ++S) {
      if (V > std::numeric_limits<uint64_t>::max() / 10)
        return None;
      V *= 10;
    }
  }
  constexpr uint64_t MaxPos = uint64_t(std::numeric_limits<int64_t>::max());
  if (Neg) {
    if (V > MaxPos + 1)
      return None;
    // Negate in unsigned arithmetic: -(2^63) has no positive counterpart.
    return int64_t(~V + 1);
  }
  if (V > MaxPos)
    return None;
  return int64_t(V);
}

Optional<int64_t> dd::import::parseMicrosAsNanos(StringRef Token) {
  // The common case, as Kineto writes it: up to 16 integer digits (epoch
  // microseconds) and up to three fraction digits, at most 19 digits in all,
  // which fit in uint64. Everything else (signs, exponents, more digits,
  // blanks before the next comma) takes the general path.
  size_t N = Token.size(), I = 0;
  if (N != 0 && N <= 20 && isDigit(Token[0]) &&
      (Token[0] != '0' || N == 1 || Token[1] == '.')) {
    uint64_t V = 0;
    for (; I < N && I < 16 && isDigit(Token[I]); ++I)
      V = V * 10 + (Token[I] - '0');
    int Scale = 3;
    if (I + 1 < N && Token[I] == '.')
      for (++I; I < N && Scale > 0 && isDigit(Token[I]); ++I, --Scale)
        V = V * 10 + (Token[I] - '0');
    if (I == N && Token[I - 1] != '.') {
      for (; Scale > 0; --Scale)
        V *= 10;
      if (V <= uint64_t(std::numeric_limits<int64_t>::max()))
        return int64_t(V);
    }
  }
  return parseScaled(Token, 3, /*Exact=*/false);
}

Optional<int64_t> dd::import::parseIntegerToken(StringRef Token) {
  // The common case, a short run of digits, without the general machinery.
  if (!Token.empty() && Token.size() <= 18 && isDigit(Token[0]) &&
      (Token[0] != '0' || Token.size() == 1)) {
    int64_t V = 0;
    size_t I = 0;
    for (; I < Token.size() && isDigit(Token[I]); ++I)
      V = V * 10 + (Token[I] - '0');
    if (I == Token.size())
      return V;
  }
  return parseScaled(Token, 0, /*Exact=*/true);
}
