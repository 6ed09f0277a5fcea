//===- RunFile.cpp - A run's form told from its content -------------------===//
//
// JSON (a run description or a Kineto trace, told apart by the JSON reader
// itself, which must parse the document anyway) starts with '{' or '['
// after blanks; everything else is read as CSV, whose header check then
// says what is wrong if it is neither. The checks all forms share live here
// too, so that every reader fails the same way on the same problem.
//
//===----------------------------------------------------------------------===//

#include "Error.h"
#include "daydream/Import/InputFile.h"
#include "daydream/SeqPoint/RunReaders.h"

#include "llvm/ADT/DenseMap.h"

using namespace dd;
using namespace dd::seqpoint;

llvm::Expected<RunProfile> dd::seqpoint::readRunFile(llvm::StringRef Path,
                                                     const RunReadOptions &O) {
  auto In = import::loadInputFile(Path);
  if (!In)
    return In.takeError();
  llvm::StringRef Bytes = In->Bytes.str().ltrim(" \t\r\n");
  if (Bytes.startswith("\xEF\xBB\xBF"))
    Bytes = Bytes.drop_front(3).ltrim(" \t\r\n");
  if (Bytes.empty())
    return makeError(In->Name + ": empty file");
  if (Bytes.front() == '{' || Bytes.front() == '[')
    return readRunJson(*In, O);
  return readRunCsv(*In, O);
}

llvm::Error
dd::seqpoint::finishRun(RunProfile &Run,
                        const std::function<std::string(size_t)> &Where) {
  auto At = [&](size_t I) { return Where ? Where(I) : Run.source().str(); };
  if (Run.size() == 0)
    return makeError(Run.source() + ": no iterations");
  if (Run.size() == 1)
    return makeError(At(0) + ": only one iteration (" +
                     llvm::Twine(Run.iteration(0)) +
                     "): SeqPoint needs a run of at least two");
  llvm::DenseMap<int64_t, size_t> First;
  for (size_t I = 0; I != Run.size(); ++I) {
    auto [It, New] = First.try_emplace(Run.iteration(I), I);
    if (!New)
      return makeError(At(I) + ": duplicate iteration " +
                       llvm::Twine(Run.iteration(I)) + " (also at " +
                       At(It->second) + ")");
  }
  Run.sortByIteration();
  return llvm::Error::success();
}
