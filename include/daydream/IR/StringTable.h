//===- StringTable.h - Interned names of a graph ---------------*- C++ -*-===//
//
// Task, lane, layer and iteration names are stored once and referenced by a
// 32-bit id. Strings read from a memory-mapped file point into the file, so
// loading copies no characters; the lookup map that intern() needs is built
// only the first time something is interned, so a read-only tool never pays
// for it.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IR_STRINGTABLE_H
#define DAYDREAM_IR_STRINGTABLE_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"

#include <memory>
#include <vector>

namespace dd {

class StringTable {
public:
  StringTable();
  ~StringTable();
  StringTable(StringTable &&) = default;
  StringTable &operator=(StringTable &&) = default;

  size_t size() const { return Entries.size(); }
  llvm::StringRef get(StrId Id) const { return Entries[Id]; }

  /// Returns the id of \p S, adding a copy of it if it is new.
  StrId intern(llvm::StringRef S);

  /// Appends \p S without copying or deduplicating: \p S must outlive the
  /// table (it points into a buffer the graph holds).
  StrId appendUnowned(llvm::StringRef S) {
    Entries.push_back(S);
    IndexValid = false;
    return static_cast<StrId>(Entries.size() - 1);
  }

  void reserve(size_t N) { Entries.reserve(N); }

private:
  std::vector<llvm::StringRef> Entries;
  llvm::DenseMap<llvm::StringRef, StrId> Index;
  bool IndexValid = true;
  /// Owns the characters of interned strings; a pointer so that moving the
  /// table leaves them where they are.
  std::unique_ptr<llvm::BumpPtrAllocator> Alloc;
};

} // namespace dd

#endif // DAYDREAM_IR_STRINGTABLE_H
