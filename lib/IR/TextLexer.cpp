//===- TextLexer.cpp - Tokens and values of the .ddir text form -----------===//
//
// A hand-written scanner over the raw bytes. Every branch consumes at least
// one byte or stops at the end, so no input can make it loop, and it never
// reads past the end of the buffer (the input need not be NUL-terminated).
// Integers are converted with StringRef::getAsInteger, which checks the
// range of the destination type without signed overflow.
//
//===----------------------------------------------------------------------===//

#include "TextLexer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include <cstdlib>

using namespace dd;
using llvm::Error;
using llvm::StringRef;
using llvm::Twine;

namespace {

bool isWordStart(char C) { return llvm::isAlpha(C) || C == '_'; }

bool isWordChar(char C) {
  return llvm::isAlnum(C) || C == '_' || C == '.' || C == '<' || C == '>' ||
         C == '-';
}

bool isLabelChar(char C) {
  return llvm::isAlnum(C) || C == '_' || C == '.' || C == '-';
}

/// Characters that may continue a number. Signs are handled separately:
/// they only continue one after an exponent letter, so that "1e-5" is one
/// token.
bool isNumberChar(char C) { return llvm::isAlnum(C) || C == '_' || C == '.'; }

} // namespace

Token TextLexer::make(TokKind K, const char *Begin, const char *TokEnd) {
  Token T;
  T.Kind = K;
  T.Text = StringRef(Begin, TokEnd - Begin);
  T.Line = Line;
  T.Col = static_cast<unsigned>(Begin - LineStart) + 1;
  return T;
}

Token TextLexer::makeError(const char *At, std::string Message) {
  ErrorMessage = std::move(Message);
  Token T = make(TokKind::Error, At, At == End ? At : At + 1);
  T.Value = ErrorMessage;
  // Stay on the bad byte: the parser stops at the first error anyway, and
  // repeating the error is safer than guessing how to resynchronize.
  Cur = At;
  return T;
}

Token TextLexer::next() {
  // Blanks and comments. '\r' counts as a blank so that CRLF files read.
  while (Cur != End) {
    char C = *Cur;
    if (C == ' ' || C == '\t' || C == '\r') {
      ++Cur;
    } else if (C == ';') {
      while (Cur != End && *Cur != '\n')
        ++Cur;
    } else {
      break;
    }
  }
  if (Cur == End)
    return make(TokKind::EndOfFile, Cur, Cur);

  const char *Begin = Cur;
  char C = *Cur;
  char Next = Cur + 1 != End ? Cur[1] : '\0';
  switch (C) {
  case '\n': {
    Token T = make(TokKind::EndOfLine, Begin, ++Cur);
    ++Line;
    LineStart = Cur;
    return T;
  }
  case '"':
    return lexString();
  case '%':
    return lexLabel(TokKind::TaskLabel);
  case '@':
    return lexLabel(TokKind::LaneLabel);
  case '#':
    return lexLabel(TokKind::LayerLabel);
  case '=':
    return make(TokKind::Equal, Begin, ++Cur);
  case ',':
    return make(TokKind::Comma, Begin, ++Cur);
  case '-':
    if (Next == '>') {
      Cur += 2;
      return make(TokKind::Arrow, Begin, Cur);
    }
    LLVM_FALLTHROUGH;
  case '+':
    if (isNumberChar(Next))
      return lexNumber();
    break;
  default:
    if (llvm::isDigit(C) || (C == '.' && llvm::isDigit(Next)))
      return lexNumber();
    if (isWordStart(C)) {
      while (Cur != End && isWordChar(*Cur))
        ++Cur;
      return make(TokKind::Word, Begin, Cur);
    }
    break;
  }
  return makeError(Begin, "unexpected character " +
                              quoteForMessage(StringRef(Begin, 1)));
}

Token TextLexer::lexNumber() {
  const char *Begin = Cur++;
  while (Cur != End) {
    char C = *Cur;
    if (isNumberChar(C)) {
      ++Cur;
      continue;
    }
    char Prev = Cur[-1];
    if ((C == '+' || C == '-') &&
        (Prev == 'e' || Prev == 'E' || Prev == 'p' || Prev == 'P')) {
      ++Cur;
      continue;
    }
    break;
  }
  return make(TokKind::Number, Begin, Cur);
}

Token TextLexer::lexLabel(TokKind K) {
  const char *Begin = Cur++;
  // A '-' that starts "->" ends the label, so "%a->%b" reads as an edge.
  while (Cur != End && isLabelChar(*Cur) &&
         !(*Cur == '-' && Cur + 1 != End && Cur[1] == '>'))
    ++Cur;
  if (Cur == Begin + 1)
    return makeError(Begin, "expected a label name after " +
                                quoteForMessage(StringRef(Begin, 1)));
  Token T = make(K, Begin, Cur);
  T.Value = T.Text.drop_front();
  return T;
}

Token TextLexer::lexString() {
  const char *Begin = Cur++;
  const char *Start = Cur;
  // Until the first escape, the value is a slice of the input; from then on
  // it is built in Scratch.
  bool Escaped = false;
  while (true) {
    if (Cur == End || *Cur == '\n')
      return makeError(Begin, "unterminated string");
    char C = *Cur;
    if (C == '"')
      break;
    if (C != '\\') {
      if (Escaped)
        Scratch.push_back(C);
      ++Cur;
      continue;
    }
    if (!Escaped) {
      Scratch.assign(Start, Cur);
      Escaped = true;
    }
    const char *Esc = Cur++;
    if (Cur == End || *Cur == '\n')
      return makeError(Begin, "unterminated string");
    char E = *Cur++;
    switch (E) {
    case '\\':
    case '"':
      Scratch.push_back(E);
      continue;
    case 'n':
      Scratch.push_back('\n');
      continue;
    case 't':
      Scratch.push_back('\t');
      continue;
    case 'r':
      Scratch.push_back('\r');
      continue;
    case 'x':
      if (End - Cur >= 2 && llvm::isHexDigit(Cur[0]) &&
          llvm::isHexDigit(Cur[1])) {
        Scratch.push_back(static_cast<char>(llvm::hexDigitValue(Cur[0]) * 16 +
                                            llvm::hexDigitValue(Cur[1])));
        Cur += 2;
        continue;
      }
      break;
    default:
      break;
    }
    return makeError(Esc, "invalid escape sequence in string");
  }
  ++Cur; // the closing quote
  StringRef Value =
      Escaped ? StringRef(Scratch) : StringRef(Start, Cur - 1 - Start);
  // Graph strings are UTF-8 (StringTable::intern()), here refused rather
  // than repaired, since a hand-written file should say what it means.
  size_t Bad = 0;
  if (!llvm::json::isUTF8(Value, &Bad))
    return makeError(Escaped ? Begin : Start + Bad,
                     "string is not valid UTF-8");
  Token T = make(TokKind::String, Begin, Cur);
  T.Value = Value;
  return T;
}

std::string dd::quoteForMessage(StringRef S) {
  // Enough to recognize the token; a runaway token could be megabytes long.
  constexpr size_t MaxShown = 40;
  std::string Out = "'";
  for (size_t I = 0, E = std::min(S.size(), MaxShown); I != E; ++I) {
    unsigned char C = S[I];
    if (C < 0x20 || C >= 0x7f) {
      Out += "\\x";
      Out += llvm::hexdigit(C >> 4);
      Out += llvm::hexdigit(C & 15);
    } else {
      Out += static_cast<char>(C);
    }
  }
  if (S.size() > MaxShown)
    Out += "...";
  Out += "'";
  return Out;
}

std::string dd::describeToken(const Token &T) {
  switch (T.Kind) {
  case TokKind::EndOfLine:
    return "end of line";
  case TokKind::EndOfFile:
    return "end of file";
  default:
    return quoteForMessage(T.Text);
  }
}

Error TokenReader::error(unsigned Line, unsigned Col, const Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 Twine(Line) + ":" + Twine(Col) + ": " + Msg);
}

Error TokenReader::expected(const Twine &What) const {
  if (Tok.Kind == TokKind::Error)
    return error(Tok, Tok.Value);
  return error(Tok, "expected " + What + ", found " + describeToken(Tok));
}

Error TokenReader::intError() const {
  // Tell a well-formed integer that does not fit from something else.
  StringRef Digits = Tok.Text;
  Digits.consume_front("-");
  if (Tok.Kind == TokKind::Number && !Digits.empty() &&
      llvm::all_of(Digits, llvm::isDigit))
    return error(Tok, "integer out of range");
  return expected("an integer");
}

Error TokenReader::readTriple(uint32_t (&Out)[3]) {
  for (unsigned I = 0; I != 3; ++I) {
    if (I != 0) {
      if (Tok.Kind != TokKind::Comma)
        return expected("','");
      advance();
    }
    if (Error E = readInt(Out[I]))
      return E;
  }
  return Error::success();
}

Error TokenReader::readFloat(double &Out) {
  // Words too, for "inf" and "nan".
  if (Tok.Kind == TokKind::Number || Tok.Kind == TokKind::Word) {
    FloatBuf.assign(Tok.Text.begin(), Tok.Text.end());
    char *End = nullptr;
    double V = std::strtod(FloatBuf.c_str(), &End);
    if (!FloatBuf.empty() && End == FloatBuf.c_str() + FloatBuf.size()) {
      Out = V;
      advance();
      return Error::success();
    }
  }
  return expected("a number");
}

Error TokenReader::readString(const Twine &What,
                              llvm::function_ref<void(StringRef)> Take) {
  if (Tok.Kind != TokKind::String)
    return expected(What);
  // Before advancing: the next string may reuse the lexer's buffer.
  Take(Tok.Value);
  advance();
  return Error::success();
}

Error TokenReader::readString(const Twine &What, std::string &Out) {
  return readString(What, [&](StringRef S) { Out.assign(S.begin(), S.end()); });
}

Error TokenReader::readKeyValues(
    llvm::ArrayRef<StringRef> Keys, KeySet &Seen,
    llvm::function_ref<Error(unsigned)> ReadValue) {
  Seen = 0;
  while (!atEndOfStatement()) {
    if (Tok.Kind != TokKind::Word)
      return expected("an attribute");
    const StringRef *It = llvm::find(Keys, Tok.Text);
    if (It == Keys.end())
      return error(Tok, "unknown attribute " + describeToken(Tok));
    unsigned Index = It - Keys.begin();
    if (Seen & (KeySet(1) << Index))
      return error(Tok, "duplicate attribute " + describeToken(Tok));
    Seen |= KeySet(1) << Index;
    advance();
    if (Tok.Kind != TokKind::Equal)
      return expected("'=' after '" + *It + "'");
    advance();
    if (Error E = ReadValue(Index))
      return E;
  }
  return Error::success();
}
