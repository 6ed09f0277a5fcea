//===- TraceEvents.h - A run from a Kineto trace's events -------*- C++ -*-===//
//
// Private to lib/SeqPoint: the JSON reader parses the document once and,
// finding a traceEvents array, hands it here instead of parsing again.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_SEQPOINT_TRACEEVENTS_H
#define DAYDREAM_LIB_SEQPOINT_TRACEEVENTS_H

#include "daydream/SeqPoint/RunReaders.h"

#include <simdjson.h>

namespace dd::seqpoint {

/// Errors are prefixed with \p Name.
llvm::Expected<RunProfile> readTraceEvents(llvm::StringRef Name,
                                           simdjson::dom::array Events,
                                           const TraceLengthOptions &Opts);

} // namespace dd::seqpoint

#endif // DAYDREAM_LIB_SEQPOINT_TRACEEVENTS_H
