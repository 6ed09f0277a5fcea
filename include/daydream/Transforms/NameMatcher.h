//===- NameMatcher.h - A regex over a graph's names, memoized ---*- C++ -*-===//
//
// Passes select tasks, lanes and layers by name regexes. A million tasks
// share a few thousand names, so the answer is kept per string id and the
// regex runs once per distinct name: selection stays linear in the tasks.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_TRANSFORMS_NAMEMATCHER_H
#define DAYDREAM_TRANSFORMS_NAMEMATCHER_H

#include "daydream/IR/Types.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

#include <vector>

namespace dd {

class Graph;

class NameMatcher {
public:
  /// An empty \p Pattern matches every string id, NoId included.
  NameMatcher(const Graph &G, llvm::StringRef Pattern,
              unsigned Flags = llvm::Regex::NoFlags);

  /// Whether the string \p S contains a match. NoId (no name) never
  /// matches a pattern; strings interned after construction are handled.
  bool matches(StrId S);

private:
  const Graph &G;
  llvm::Regex Re;
  bool Active;
  std::vector<char> Memo; ///< by string id: 0 unknown, 1 match, 2 no match
};

} // namespace dd

#endif // DAYDREAM_TRANSFORMS_NAMEMATCHER_H
