//===- InputFile.h - Trace bytes, decompressed and padded -------*- C++ -*-===//
//
// Every importer starts from the bytes of one input: a file or stdin, gunzipped
// when it starts with the gzip magic (Kineto traces are usually stored as
// .json.gz), and followed by zero padding so that vectorized parsers such as
// simdjson may read a few bytes past the end without a copy. The format of the
// bytes is told by their content, never by the file name, because traces are
// renamed and piped.
//
//===----------------------------------------------------------------------===//

#ifndef DAYDREAM_IMPORT_INPUTFILE_H
#define DAYDREAM_IMPORT_INPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include "llvm/Support/MemoryBuffer.h"
#include <cstdint>
#include <memory>

#include <memory>
#include <string>

namespace dd::import {

/// Zero bytes that follow the data of every PaddedBuffer: simdjson needs 64
/// (SIMDJSON_PADDING; KinetoReader.cpp checks the two agree).
constexpr size_t InputPadding = 64;

/// A byte buffer followed by InputPadding zero bytes.
class PaddedBuffer {
public:
  PaddedBuffer() = default;
  /// A copy of \p Bytes.
  explicit PaddedBuffer(llvm::StringRef Bytes);

  /// A view of \p Size bytes that someone else keeps alive, followed by
  /// InputPadding zero bytes.
  static PaddedBuffer view(const char *Bytes, size_t Size);
  /// A view of a memory-mapped file whose mapping is known to continue for
  /// InputPadding zero bytes past its end (the rest of its last page), so
  /// that a large plain trace is parsed where it lies instead of copied.
  static PaddedBuffer mapped(std::unique_ptr<llvm::MemoryBuffer> File);

  const char *data() const { return View ? View : Data.get(); }
  /// The owned bytes, for filling (gunzip); null for a mapped() buffer.
  char *writableData() { return View ? nullptr : Data.get(); }
  size_t size() const { return Size; }
  size_t capacity() const { return Capacity; }
  llvm::StringRef str() const { return {data(), Size}; }

  /// Makes room for at least \p N bytes, keeping the content.
  void reserve(size_t N);
  /// Sets the size to \p N <= capacity() and zeroes the padding after it.
  void setSize(size_t N);

private:
  std::unique_ptr<char[]> Data;
  /// Set for a mapped() buffer, which owns the mapping instead of Data.
  const char *View = nullptr;
  std::unique_ptr<llvm::MemoryBuffer> Mapping;
  size_t Size = 0;
  size_t Capacity = 0; ///< bytes usable before the padding
};

class InflateAhead;

/// The bytes of one input, decompressed.
struct InputFile {
  /// The path as given, or "<stdin>"; it prefixes every error message.
  std::string Name;
  /// The content, gunzipped if it was gzip. While a gzip is still being
  /// inflated (Ahead), only what has arrived so far: read it through
  /// arrived() and text(), or after finishInflating().
  PaddedBuffer Bytes;
  /// The size as stored, before decompression.
  uint64_t StoredSize = 0;
  bool WasGzip = false;

  /// The stored bytes while Ahead inflates them (declared first: the
  /// thread stops before they go).
  std::shared_ptr<llvm::MemoryBuffer> StoredBuffer;
  /// Set when a gzip is inflated on another thread ahead of its reader
  /// (loadInputFile()); it holds the bytes.
  std::shared_ptr<InflateAhead> Ahead;
  /// What the gzip's trailer says it inflates to, while Ahead inflates it.
  size_t ExpectedBytes = 0;
  /// The stored bytes and the bound they were loaded with, to inflate them
  /// again should they outgrow the trailer's size.
  llvm::StringRef Stored;
  uint64_t MaxBytes = 0;
  /// Whether finishInflating() has succeeded: Bytes are whole.
  bool Complete = false;

  /// At least the first \p N bytes (all, if there are fewer), waiting for
  /// them if they are still being inflated.
  llvm::StringRef arrived(size_t N) const;
  /// All the bytes, waiting for them; those that arrived if the gzip turns
  /// out bad (finishInflating() says so).
  llvm::StringRef text() const;
  /// The size the content will have: its size once whole, else what the
  /// gzip's trailer says, a guess.
  size_t expectedSize() const;
  /// Waits for the bytes still being inflated, if any, and makes Bytes
  /// whole; the gzip's error (unprefixed), if it was bad. Where the text
  /// outgrew the trailer's size (several gzip members, or 4 GiB and more),
  /// what a reader saw was cut short: it is inflated again, whole, and
  /// \p Redo (if given) is set for the caller to read it again.
  llvm::Error finishInflating(bool *Redo = nullptr);
};

/// Reads \p Path ("-" for stdin) and gunzips it if it is gzip (by its magic
/// bytes 1f 8b, whatever the file is called). \p MaxBytes bounds what a
/// gzip may decompress to (a decompression bomb); 0 means the machine's
/// memory. With \p InflateAheadOfReader, a gzip is inflated on another
/// thread while the caller reads what has arrived (InputFile::Ahead);
/// errors in it come from InputFile::finishInflating().
llvm::Expected<InputFile> loadInputFile(llvm::StringRef Path,
                                        uint64_t MaxBytes = 0,
                                        bool InflateAheadOfReader = false);

/// Makes an InputFile named \p Name from bytes already in memory (tests,
/// fuzzers), gunzipping them if they are gzip.
llvm::Expected<InputFile> makeInputFile(llvm::StringRef Name,
                                        llvm::StringRef Stored,
                                        uint64_t MaxBytes = 0);

/// makeInputFile(), but a gzip is inflated on another thread ahead of its
/// reader, as loadInputFile() does, \p StepBytes at a time, and with
/// \p OnDemand no further than the reader has asked (tests: the reader
/// then waits at every step); \p Stored must outlive the result.
llvm::Expected<InputFile>
makeInputFileAhead(llvm::StringRef Name, llvm::StringRef Stored,
                   uint64_t MaxBytes, size_t StepBytes, bool OnDemand = false);

/// True if \p Bytes start with the gzip magic.
bool isGzip(llvm::StringRef Bytes);

/// Decompresses one or more concatenated gzip members into \p Out, of any
/// size (the trailer's size, modulo 4 GiB, is only a first guess), as
/// inflateGzip() does (InflateAhead.h); \p MaxBytes 0 is the machine's
/// memory. The caller prefixes the input's name to an error.
llvm::Error gunzip(llvm::StringRef Compressed, PaddedBuffer &Out,
                   uint64_t MaxBytes = 0);

enum class InputFormat { KinetoJson, NsysSqlite, CuptiRecords, Unknown };

/// Tells the format of decompressed bytes by their content: the SQLite
/// header for an Nsight Systems export, the .ddrec magic for dd-trace's
/// CUPTI records, '{' or '[' (after blanks and a UTF-8 byte order mark) for
/// a Kineto / Chrome trace.
InputFormat detectFormat(llvm::StringRef Bytes);

} // namespace dd::import

#endif // DAYDREAM_IMPORT_INPUTFILE_H
