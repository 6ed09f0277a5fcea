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
#include <string>
#include <vector>

namespace dd {

/// \p S, with each byte that is not part of valid UTF-8 replaced by U+FFFD:
/// what StringTable::intern() does, for the metadata strings (producer,
/// device names, hosts) a graph holds outside its table.
std::string repairedUtf8(llvm::StringRef S);

class StringTable {
public:
  StringTable();
  ~StringTable();
  StringTable(StringTable &&) = default;
  StringTable &operator=(StringTable &&) = default;

  size_t size() const { return Entries.size(); }
  llvm::StringRef get(StrId Id) const { return Entries[Id]; }

  /// Returns the id of \p S, adding a copy of it if it is new. Every string
  /// of a graph is UTF-8: a new \p S that is not has each bad byte replaced
  /// by U+FFFD (and is counted in numRepaired()), so that a trace's damaged
  /// names cannot make the graph's text, JSON or SVG ill-formed.
  StrId intern(llvm::StringRef S);

  /// How many strings intern() had to repair.
  size_t numRepaired() const { return NumRepaired; }

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
  size_t NumRepaired = 0;
  /// Owns the characters of interned strings; a pointer so that moving the
  /// table leaves them where they are.
  std::unique_ptr<llvm::BumpPtrAllocator> Alloc;
};

} // namespace dd

#endif // DAYDREAM_IR_STRINGTABLE_H
