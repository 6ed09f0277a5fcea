//===- IRReader.h - Read a graph in either form ----------------*- C++ -*-===//
//
// Reads a .ddir file or stdin ("-"), telling the binary form from the text
// form by content (the FlatBuffers file identifier "DDIR" at offset 4), never
// by file name, and verifies it. Errors name the file: "<file>: <what>".
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_IRREADER_H
#define DAYDREAM_IR_IRREADER_H

#include "daydream/IR/Graph.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

namespace dd {

/// True if \p Bytes starts like a binary .ddir file.
bool looksLikeBinaryIR(llvm::StringRef Bytes);

/// Parses and verifies \p Buf (binary or text). \p Name is used in errors.
/// The graph keeps \p Buf alive, since its strings may point into it.
llvm::Expected<Graph> readGraph(std::unique_ptr<llvm::MemoryBuffer> Buf);

/// Opens \p Path ("-" for stdin), memory-mapping files, and reads it. With
/// \p InPlace, a binary file's task and edge records are used where they
/// lie, in a private copy-on-write mapping (TaskStore.h), instead of being
/// copied: loading then costs a fraction of the time and memory, but the
/// first change to a task or edge pays for its page, and the first task
/// (edge) added for the copy of every task (edge). Callers that only read the
/// tasks (dd-sim, printer-only dd-opt pipelines) ask for it. \p WillChange
/// (with \p InPlace) says most tasks will change: the mapping's pages are
/// then made private all at once, before they are read, which costs what
/// a copy would, but holds the records once instead of twice (the file's
/// pages and their copy).
llvm::Expected<Graph> readGraphFile(llvm::StringRef Path, bool InPlace = false,
                                    bool WillChange = false);

} // namespace dd

#endif // DAYDREAM_IR_IRREADER_H
