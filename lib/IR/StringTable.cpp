//===- StringTable.cpp - Interned names of a graph ------------------------===//
//
// The lazily built lookup index behind StringTable::intern().
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/StringTable.h"

#include "llvm/Support/JSON.h"

#include <cstring>

using namespace dd;

StringTable::StringTable()
    : Alloc(std::make_unique<llvm::BumpPtrAllocator>()) {}

StringTable::~StringTable() = default;

std::string dd::repairedUtf8(llvm::StringRef S) {
  return llvm::json::isUTF8(S) ? S.str() : llvm::json::fixUTF8(S);
}

StrId StringTable::intern(llvm::StringRef S) {
  if (!IndexValid) {
    // First intern after a bulk load: index what is there. Duplicates in a
    // loaded table keep their first id.
    Index.clear();
    Index.reserve(Entries.size());
    for (StrId I = 0, E = Entries.size(); I != E; ++I)
      Index.try_emplace(Entries[I], I);
    IndexValid = true;
  }
  auto It = Index.find(S);
  if (It != Index.end())
    return It->second;
  // Checked only for a string not seen before, so a trace's repeated names
  // cost one lookup each.
  std::string Fixed;
  if (LLVM_UNLIKELY(!llvm::json::isUTF8(S))) {
    Fixed = llvm::json::fixUTF8(S);
    ++NumRepaired;
    S = Fixed;
    It = Index.find(S);
    if (It != Index.end())
      return It->second;
  }
  char *Copy = static_cast<char *>(Alloc->Allocate(S.size() + 1, 1));
  if (!S.empty())
    std::memcpy(Copy, S.data(), S.size());
  Copy[S.size()] = '\0';
  llvm::StringRef Owned(Copy, S.size());
  StrId Id = static_cast<StrId>(Entries.size());
  Entries.push_back(Owned);
  Index.try_emplace(Owned, Id);
  return Id;
}
