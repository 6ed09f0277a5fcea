//===- SimReport.h - dd-sim's human and JSON reports ------------*- C++ -*-===//
//
// Formats a SimResult. The JSON form is a stable interface for scripts:
//   {"input": S, "policy": S, "tasks": N, "edges": N,
//    "predicted_ns": N, "origin_ns": N,
//    "iterations": [{"name": S, "measured_ns": N|null, "predicted_ns": N|null,
//                    "error": X|null}],
//    "lanes": [{"name": S, "kind": S, "tasks": N, "busy_ns": N}]}
// where "error" is (predicted - measured) / measured.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TOOLS_SIMREPORT_H
#define DAYDREAM_TOOLS_SIMREPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace dd {

class Graph;
struct SimResult;

struct SimReportInfo {
  llvm::StringRef InputName;
  llvm::StringRef PolicyName;
};

void printSimReportText(const Graph &G, const SimResult &R,
                        const SimReportInfo &Info, llvm::raw_ostream &OS);
void printSimReportJson(const Graph &G, const SimResult &R,
                        const SimReportInfo &Info, llvm::raw_ostream &OS);

} // namespace dd

#endif // DAYDREAM_TOOLS_SIMREPORT_H
