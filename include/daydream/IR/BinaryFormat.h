//===- BinaryFormat.h - The binary .ddir form ------------------*- C++ -*-===//
//
// Reading and writing the FlatBuffers form (schema: lib/IR/ddir.fbs). The
// reader checks the buffer with the FlatBuffers Verifier and the format
// version before it touches any field; the semantic checks are the Verifier's
// (Verifier.h), run by readGraph().
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_BINARYFORMAT_H
#define DAYDREAM_IR_BINARYFORMAT_H

#include "daydream/IR/Graph.h"
#include "daydream/IR/GrowableFileMapping.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace dd {

/// The version written into every file. Readers accept it and every one
/// back to OldestBinaryFormatVersion; docs/IR.md lists what changed between
/// versions. Version 4's sections hold the arrays that grow with the graph
/// at 64-bit offsets after the FlatBuffers head, so a file has no size
/// limit of its own: a graph's ids (32 bits) and memory are the limits.
constexpr uint32_t BinaryFormatVersion = 4;
constexpr uint32_t OldestBinaryFormatVersion = 2;

/// Parses a binary graph whose bytes are \p Bytes (which must stay alive as
/// long as the graph: strings point into it). Checks each task's own fields
/// (TaskFieldBounds.h) as it links the task into its lane, and nothing
/// else: verifyAsRead() does the rest of verifyGraph().
llvm::Expected<Graph> parseBinaryGraph(llvm::StringRef Bytes);
/// The same for \p Bytes that are a read-only mapping of a file, which
/// holds them: the task and edge records are copied a few megabytes at a
/// time, and each part's pages handed back to the kernel once copied, so
/// that the records are resident once rather than twice (a reader that
/// adds tasks and so cannot use them in place keeps 48 bytes a task less).
llvm::Expected<Graph> parseMappedBinaryGraph(llvm::StringRef Bytes);
/// Maps the file's record array at byte \p Offset, \p Bytes long, again
/// with room after it for \p Capacity bytes in all; null to use the records
/// where they lie.
using MapWithRoomFn = llvm::function_ref<std::unique_ptr<GrowableFileMapping>(
    uint64_t Offset, size_t Bytes, size_t Capacity)>;
/// The same, but the graph may keep using the task and edge records where
/// they lie in \p Bytes (TaskStore.h) instead of copying them: \p Bytes must be
/// writable memory no one else sees (a private mapping of the file) and
/// outlive the graph (Graph::holdBuffer()). With \p MapWithRoom, the graph
/// uses them where it maps them instead, so that passes that add tasks or
/// edges add them in place.
llvm::Expected<Graph>
parseBinaryGraphInPlace(llvm::MutableArrayRef<char> Bytes,
                        MapWithRoomFn MapWithRoom = nullptr);

/// Writes \p G in canonical order. Fails only if \p G has a cycle.
llvm::Error writeBinaryGraph(const Graph &G, llvm::raw_ostream &OS);

} // namespace dd

#endif // DAYDREAM_IR_BINARYFORMAT_H
