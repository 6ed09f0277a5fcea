//===- IRReader.cpp - Read a graph in either form -------------------------===//
//
// The single entry point every tool uses to load a graph: pick the form by
// content, parse, verify, and prefix every error with the input's name.
//
//===----------------------------------------------------------------------===//

#include "daydream/IR/IRReader.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/TextFormat.h"
#include "daydream/IR/Verifier.h"

using namespace dd;
using llvm::Expected;

bool dd::looksLikeBinaryIR(llvm::StringRef Bytes) {
  return Bytes.size() >= 8 && Bytes.substr(4, 4) == "DDIR";
}

static llvm::Error withName(llvm::StringRef Name, llvm::Error E) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 Name + ": " + llvm::toString(std::move(E)));
}

Expected<Graph> dd::readGraph(std::unique_ptr<llvm::MemoryBuffer> Buf) {
  llvm::StringRef Name = Buf->getBufferIdentifier();
  llvm::StringRef Bytes = Buf->getBuffer();
  if (Bytes.empty())
    return withName(Name, llvm::createStringError(
                              llvm::inconvertibleErrorCode(), "file is empty"));
  Expected<Graph> G = looksLikeBinaryIR(Bytes) ? parseBinaryGraph(Bytes)
                                               : parseTextGraph(Bytes);
  if (!G)
    return withName(Name, G.takeError());
  if (llvm::Error E = verifyGraph(*G))
    return withName(Name, std::move(E));
  G->holdBuffer(std::move(Buf));
  return G;
}

Expected<Graph> dd::readGraphFile(llvm::StringRef Path) {
  // Large files are memory-mapped; the buffer need not be NUL-terminated.
  auto BufOr =
      llvm::MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (std::error_code EC = BufOr.getError())
    return llvm::createStringError(
        EC, "%s: %s", (Path == "-" ? "<stdin>" : Path.str()).c_str(),
        EC.message().c_str());
  return readGraph(std::move(*BufOr));
}
