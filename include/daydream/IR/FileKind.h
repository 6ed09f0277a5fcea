//===- FileKind.h - What a file given to the wrong tool is ------*- C++ -*-===//
//
// dd-sim handed a trace, or dd-import handed a graph, should say what the
// file is and which command reads it, not that it fails to parse. Sniffed
// from the first bytes (and, for the formats with no magic this project
// reads, the name), never trusted beyond the message.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_FILEKIND_H
#define DAYDREAM_IR_FILEKIND_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace dd {

enum class FileKind {
  Unknown,
  DdirBinary,   ///< a graph, binary form
  DdirText,     ///< a graph, text form ("ddir N" first)
  Gzip,         ///< compressed: a .json.gz trace, most likely
  Json,         ///< a PyTorch profiler (Kineto) trace, most likely
  NsysSqlite,   ///< Nsight Systems' SQLite export
  NsysReport,   ///< Nsight Systems' own .nsys-rep / .qdrep report
  CuptiRecords, ///< dd-trace's .ddrec records
  DdJob,        ///< a job split over files ("ddjob N" first)
};

/// The first bytes of dd-trace's .ddrec files (trace::RecordFileMagic, which
/// the importer checks is the same: the IR library does not link Trace).
inline constexpr char CuptiRecordsMagic[] = "DDRECORD";

/// What \p Bytes (the start of the file is enough), named \p Name, is. The
/// importer tells its formats by the same rules (import::detectFormat()).
FileKind sniffFileKind(llvm::StringRef Name, llvm::StringRef Bytes);

/// What the file \p Path is, from its first bytes; Unknown if it cannot be
/// read (reading it for real says why).
FileKind sniffFileKindOf(llvm::StringRef Path);

/// "is JSON (a PyTorch profiler trace?), not a .ddir graph: `dd-import
/// FILE -o graph.ddir` reads it": what a tool that wanted a graph (\p
/// WantedGraph) or a trace says of a file of kind \p K named \p Name; empty
/// when \p K is what it wanted or unknown.
std::string wrongKindHint(FileKind K, llvm::StringRef Name, bool WantedGraph);

} // namespace dd

#endif // DAYDREAM_IR_FILEKIND_H
