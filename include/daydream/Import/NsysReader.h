//===- NsysReader.h - Nsight Systems SQLite front-end -----------*- C++ -*-===//
//
// Reads the SQLite database that `nsys export --type sqlite` writes and fills
// a TraceModel: CUDA runtime and driver calls, kernels, copies, sets,
// synchronization records, NVTX ranges, device properties and thread names.
// It only extracts; the lowering shared by every front-end builds the graph.
// Tables an export may lack (a CPU-only run has no kernel table) read as
// empty, so one reader serves every nsys version whose columns it knows.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IMPORT_NSYSREADER_H
#define DAYDREAM_IMPORT_NSYSREADER_H

#include "daydream/Import/TraceModel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace dd::import {

/// Reads an Nsight Systems SQLite export (nsys export --type sqlite). \p Path
/// must name a file: SQLite cannot read a pipe, so a caller reading stdin
/// writes it to a temporary file first. The database is opened read-only.
///
/// Fails, with a message that starts with \p Path, when the file is not an
/// SQLite database, is one without any nsys table, or is corrupt or
/// truncated. Rows lacking a required field are skipped and counted in
/// Stats.MissingFields.
llvm::Expected<TraceModel> readNsysTrace(llvm::StringRef Path);

} // namespace dd::import

#endif // DAYDREAM_IMPORT_NSYSREADER_H
