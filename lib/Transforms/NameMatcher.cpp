//===- NameMatcher.cpp - A regex over a graph's names, memoized -----------===//

#include "daydream/Transforms/NameMatcher.h"
#include "daydream/IR/Graph.h"

using namespace dd;

NameMatcher::NameMatcher(const Graph &G, llvm::StringRef Pattern,
                         unsigned Flags)
    : G(G), Re(Pattern, Flags), Active(!Pattern.empty()),
      Memo(Active ? G.strings().size() : 0, 0) {}

bool NameMatcher::matches(StrId S) {
  if (!Active)
    return true;
  if (S == NoId)
    return false;
  if (S >= Memo.size()) // a name a pass interned after construction
    Memo.resize(G.strings().size(), 0);
  char &M = Memo[S];
  if (M == 0)
    M = Re.match(G.str(S)) ? 1 : 2;
  return M == 1;
}
