//===- DeviceName.h - How reports name a device -----------------*- C++ -*-===//
//
// The printers and dd-sim's report label figures by device; the name comes
// from the graph's metadata, which not every trace fills in.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_DEVICENAME_H
#define DAYDREAM_IR_DEVICENAME_H

#include "daydream/IR/Graph.h"

#include "llvm/ADT/StringRef.h"

namespace dd {

/// The metadata's name of device \p Index, "host" for -1, "" if unknown.
inline llvm::StringRef deviceName(const Graph &G, int32_t Index) {
  if (Index < 0)
    return "host";
  for (const Device &D : G.metadata().Devices)
    if (D.Index == Index)
      return D.Name;
  return "";
}

} // namespace dd

#endif // DAYDREAM_IR_DEVICENAME_H
