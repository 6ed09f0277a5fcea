//===- GzipStream.h - A raw_ostream that gzips into another -----*- C++ -*-===//
//
// Kineto traces are usually stored as .json.gz, and a synthetic trace of
// millions of events is a few gigabytes of JSON; the tools gzip on the way
// out when an output's name ends in ".gz" (dd-synth's traces, dd-sim's
// predicted trace, timeline and reports), at zlib's fastest level (the
// importer reads it back either way). The gzip header carries no time, so
// the bytes depend only on the content.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_SUPPORT_GZIPSTREAM_H
#define DAYDREAM_SUPPORT_GZIPSTREAM_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace dd {

class OutputFile;

class GzipStream : public llvm::raw_ostream {
public:
  explicit GzipStream(llvm::raw_ostream &Out);
  ~GzipStream() override;

  /// Compresses what is left and ends the gzip stream.
  llvm::Error finish();

private:
  void write_impl(const char *Ptr, size_t Size) override;
  uint64_t current_pos() const override { return Pos; }
  void deflateSome(const char *Ptr, size_t Size, bool Finish);

  struct State;
  std::unique_ptr<State> S;
  llvm::raw_ostream &Out;
  uint64_t Pos = 0;
  bool Failed = false;
};

/// Runs \p Write on \p Out's stream, through a GzipStream when \p Out's
/// name ends in ".gz"; an error names the file. The caller commits \p Out.
llvm::Error
writeGzippedIfNamed(OutputFile &Out,
                    llvm::function_ref<void(llvm::raw_ostream &)> Write);

} // namespace dd

#endif // DAYDREAM_SUPPORT_GZIPSTREAM_H
