//===- Diagnostics.h - dd-trace's messages in a process ---------*- C++ -*-===//
//
// The injection library speaks to the user on the traced program's stderr,
// the only channel it has, with each message prefixed "dd-trace: " so that
// it stands out from the program's own output. A message goes out in one
// write(), so that the lines of several traced processes (data-parallel
// workers) do not interleave mid-line, and without stdio, whose locks a
// signal handler must not take.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_LIB_TRACE_INJECTION_DIAGNOSTICS_H
#define DAYDREAM_LIB_TRACE_INJECTION_DIAGNOSTICS_H

#include <string>

namespace dd::trace {

/// Writes "dd-trace: <Message>\n" to stderr.
void diagnose(const std::string &Message);

} // namespace dd::trace

#endif // DAYDREAM_LIB_TRACE_INJECTION_DIAGNOSTICS_H
