//===- CuptiRecordReader.h - dd-trace's .ddrec files to a TraceModel -*- C++
//-*-===//
//
// Reads the files libddtrace.so wrote (RecordFile.h), one per traced
// process, into one TraceModel through CuptiModelBuilder. A file cut short
// (the process was killed before it could finish writing) is read up to its
// last whole frame, with a warning; a corrupt one is an error that names the
// file and the byte offset.
//
// The records' layouts are those of the CUPTI headers the project was built
// with; a build without CUPTI reads no .ddrec file and says so.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IMPORT_CUPTIRECORDREADER_H
#define DAYDREAM_IMPORT_CUPTIRECORDREADER_H

#include "daydream/Import/TraceModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace dd::import {

/// One .ddrec file's bytes, and the name to report it under.
struct RecordFileInput {
  llvm::StringRef Name;
  llvm::StringRef Bytes;
};

/// Whether this build can read .ddrec files (it was built with CUPTI).
bool canReadCuptiRecords();

/// Reads \p Files (one per traced process) into one model. Warnings (a file
/// cut short, records CUPTI dropped) are appended to \p Warnings, each
/// naming its file.
llvm::Expected<TraceModel>
readCuptiRecordFiles(llvm::ArrayRef<RecordFileInput> Files,
                     std::vector<std::string> &Warnings);

} // namespace dd::import

#endif // DAYDREAM_IMPORT_CUPTIRECORDREADER_H
