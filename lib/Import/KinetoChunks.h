//===- KinetoChunks.h - Cutting traceEvents into pieces -------*- C++ -*-===//
//
// A large trace is parsed a few hundred kilobytes of events at a time
// (KinetoOptions::PieceBytes) rather than as one document (KinetoReader.cpp):
// simdjson's index of a whole 150 MB trace is larger than the trace, costs a
// page fault per 4 KB to build and falls out of the cache before it is read
// back, while the index of one piece stays in the cache and its memory is
// reused.
//
// The cuts are found by looking at the text, not by parsing it, so they can
// be wrong: a "},{" inside a string or inside a nested array of objects. The
// reader does not trust them. A piece is parsed as "[" + piece + "]", which is
// valid JSON only if the piece ends outside every string and bracket, and the
// rest of the document is parsed with its events array cut short; if any of
// these parses fails, the reader starts again on the whole document, which
// then either succeeds or reports the error where it is.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_IMPORT_KINETOCHUNKS_H
#define DAYDREAM_LIB_IMPORT_KINETOCHUNKS_H

#include "llvm/ADT/StringRef.h"

namespace dd::import::kineto {

/// The offset of the '[' that opens the first "traceEvents" array of
/// \p Bytes, or npos. Only a guess: the reader checks that the parse of
/// the document finds the array there.
size_t findEventsArray(llvm::StringRef Bytes);

/// The offset of the first ',' at or after \p From that stands between two
/// objects: "}" and "{" with only that comma and whitespace between them. Or
/// npos.
size_t findEventBoundary(llvm::StringRef Bytes, size_t From);

} // namespace dd::import::kineto

#endif // DAYDREAM_LIB_IMPORT_KINETOCHUNKS_H
