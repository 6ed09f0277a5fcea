//===- TextLexer.h - Tokens and values of the .ddir text form --*- C++ -*-===//
//
// The token level of the text form, kept apart from the statement grammar in
// TextParser.cpp. TextLexer splits the input into bare words, numbers, quoted
// strings (escapes already decoded), the labels %task, @lane and #layer, and
// the punctuation `->`, `=` and `,`. Comments and blanks are skipped, but line
// ends are tokens because the grammar is line oriented. A malformed token
// becomes an Error token that carries its message, so that it is reported at
// its own line and column. TokenReader reads typed values (range-checked
// integers, doubles, strings, enum spellings, key=value lists) off the token
// stream, with errors worded the same way everywhere.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IR_TEXTLEXER_H
#define DAYDREAM_LIB_IR_TEXTLEXER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Optional.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace dd {

enum class TokKind {
  Word,       // [A-Za-z_][A-Za-z0-9_.<>-]*
  Number,     // a sign or digit, then letters, digits, '.', '_', exponents
  String,     // "..."; Value holds the decoded contents
  TaskLabel,  // %name; Value holds the name without the sigil
  LaneLabel,  // @name
  LayerLabel, // #name
  Arrow,      // ->
  Equal,      // =
  Comma,      // ,
  EndOfLine,
  EndOfFile,
  Error, // Value holds the message
};

struct Token {
  TokKind Kind = TokKind::EndOfFile;
  /// The token's spelling in the input.
  llvm::StringRef Text;
  /// Decoded string contents, a label's name, or an error message. A decoded
  /// string that needed unescaping lives in the lexer and is only valid until
  /// the next string is lexed.
  llvm::StringRef Value;
  /// 1-based. Unsigned so that absurdly long inputs wrap rather than overflow.
  unsigned Line = 1;
  unsigned Col = 1;
};

class TextLexer {
public:
  explicit TextLexer(llvm::StringRef Text)
      : Cur(Text.begin()), End(Text.end()), LineStart(Text.begin()) {}

  /// Returns the next token. After EndOfFile it keeps returning EndOfFile.
  Token next();

private:
  Token make(TokKind K, const char *Begin, const char *TokEnd);
  Token makeError(const char *At, std::string Message);
  Token lexString();
  Token lexLabel(TokKind K);
  Token lexNumber();

  const char *Cur;
  const char *End;
  const char *LineStart;
  unsigned Line = 1;
  /// The decoded contents of the last string that had escapes.
  std::string Scratch;
  std::string ErrorMessage;
};

/// Describes \p T for an error message: "end of line", or its spelling in
/// quotes, shortened and with unprintable bytes escaped.
std::string describeToken(const Token &T);

/// Quotes \p S for an error message like describeToken() does.
std::string quoteForMessage(llvm::StringRef S);

/// Bit I is set when key I of a statement's key list was given.
using KeySet = uint32_t;

/// The current token and readers of single values. Each reader checks the
/// current token, stores its value and moves past it, or returns an error
/// positioned at it ("<line>:<col>: <message>").
class TokenReader {
public:
  explicit TokenReader(llvm::StringRef Text) : Lex(Text) { advance(); }

  const Token &tok() const { return Tok; }
  void advance() { Tok = Lex.next(); }
  bool atEndOfStatement() const {
    return Tok.Kind == TokKind::EndOfLine || Tok.Kind == TokKind::EndOfFile;
  }

  static llvm::Error error(unsigned Line, unsigned Col, const llvm::Twine &Msg);
  static llvm::Error error(const Token &At, const llvm::Twine &Msg) {
    return error(At.Line, At.Col, Msg);
  }
  /// "expected <What>, found <token>", or the lexer's own message when the
  /// current token is malformed.
  llvm::Error expected(const llvm::Twine &What) const;

  /// Reads a decimal integer that must fit \p T.
  template <typename T> llvm::Error readInt(T &Out) {
    if (Tok.Kind == TokKind::Number && !Tok.Text.getAsInteger(10, Out)) {
      advance();
      return llvm::Error::success();
    }
    return intError();
  }
  /// Reads "X,Y,Z".
  llvm::Error readTriple(uint32_t (&Out)[3]);
  /// Reads anything strtod accepts, "inf" and "nan" included.
  llvm::Error readFloat(double &Out);
  /// Reads a string; \p Take gets the decoded contents, which are only
  /// valid during the call.
  llvm::Error readString(const llvm::Twine &What,
                         llvm::function_ref<void(llvm::StringRef)> Take);
  llvm::Error readString(const llvm::Twine &What, std::string &Out);
  /// Reads a word that \p Lookup knows (the spellings of Types.h).
  template <typename EnumT>
  llvm::Error readEnum(EnumT &Out,
                       llvm::Optional<EnumT> (*Lookup)(llvm::StringRef),
                       const llvm::Twine &What) {
    llvm::Optional<EnumT> V;
    if (Tok.Kind == TokKind::Word)
      V = Lookup(Tok.Text);
    if (!V)
      return expected(What);
    Out = *V;
    advance();
    return llvm::Error::success();
  }
  /// Reads `key=value` pairs up to the end of the statement, in any order,
  /// each key one of \p Keys (at most 32) and given at most once. For key I
  /// it calls ReadValue(I) with the value as the current token, and sets bit
  /// I of \p Seen.
  llvm::Error
  readKeyValues(llvm::ArrayRef<llvm::StringRef> Keys, KeySet &Seen,
                llvm::function_ref<llvm::Error(unsigned)> ReadValue);

private:
  llvm::Error intError() const;

  TextLexer Lex;
  Token Tok;
  /// For strtod, which needs a NUL-terminated copy.
  std::string FloatBuf;
};

} // namespace dd

#endif // DAYDREAM_LIB_IR_TEXTLEXER_H
