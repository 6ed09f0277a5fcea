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

/// What the caller will do with a graph it reads from a file, which decides
/// how the file's task and edge records are read.
enum class GraphUse {
  /// Copied out of the file: the file's pages can then go (dd-diff).
  Copy,
  /// Used where they lie, in a private copy-on-write mapping (TaskStore.h):
  /// loading costs a fraction of the time and memory, the first change to
  /// a task or edge pays for its page, and the first task (edge) added for
  /// the copy of every task (edge). For tools that read the tasks (dd-sim,
  /// printer-only dd-opt pipelines).
  ReadInPlace,
  /// The same, but most tasks will change: their pages are made private all
  /// at once, before they are read, which costs what a copy would but holds
  /// the records once instead of twice (the file's pages and their copy).
  /// Tasks and edges added go after the file's own, in place, in room mapped
  /// after them (GrowableFileMapping.h) that costs address space only until
  /// written; mapping it costs a tool that adds none about a tenth of its
  /// load, so read-only tools do not ask for it.
  Change,
};

/// Opens \p Path ("-" for stdin), memory-mapping files, and reads it for
/// \p Use.
llvm::Expected<Graph> readGraphFile(llvm::StringRef Path,
                                    GraphUse Use = GraphUse::Copy);

} // namespace dd

#endif // DAYDREAM_IR_IRREADER_H
