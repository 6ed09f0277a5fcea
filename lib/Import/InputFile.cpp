//===- InputFile.cpp - A trace file's bytes, decompressed and padded ------===//
//
// Loading a file or stdin, gunzip with zlib straight into a padded buffer (so
// that the parser needs no second copy) or beside the reader
// (InflateAhead.h), and format detection by content.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/InputFile.h"
#include "InflateAhead.h"
#include "daydream/IR/FileKind.h"
#include "daydream/Support/MachineMemory.h"
#include "daydream/Trace/RecordFile.h"

#include "llvm/Support/Process.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <unistd.h>
#include <zlib.h>

using namespace dd::import;
using llvm::Expected;
using llvm::StringRef;

static llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

PaddedBuffer::PaddedBuffer(StringRef Bytes) {
  reserve(Bytes.size());
  if (!Bytes.empty())
    std::memcpy(Data.get(), Bytes.data(), Bytes.size());
  setSize(Bytes.size());
}

PaddedBuffer PaddedBuffer::view(const char *Bytes, size_t Size) {
  PaddedBuffer B;
  B.View = Bytes;
  B.Size = B.Capacity = Size;
  return B;
}

PaddedBuffer PaddedBuffer::mapped(std::unique_ptr<llvm::MemoryBuffer> File) {
  PaddedBuffer B;
  B.View = File->getBufferStart();
  B.Size = B.Capacity = File->getBufferSize();
  B.Mapping = std::move(File);
  return B;
}

/// Whether \p Buf is a file mapping that can be read InputPadding bytes past
/// its end: the kernel maps whole pages and zero-fills the last one.
static bool canReadPastEnd(const llvm::MemoryBuffer &Buf) {
  if (Buf.getBufferKind() != llvm::MemoryBuffer::MemoryBuffer_MMap)
    return false;
  uintptr_t End = reinterpret_cast<uintptr_t>(Buf.getBufferEnd());
  uintptr_t Page = llvm::sys::Process::getPageSizeEstimate();
  uintptr_t Left = End % Page ? Page - End % Page : 0;
  return Left >= InputPadding;
}

void PaddedBuffer::reserve(size_t N) {
  if (Data && N <= Capacity)
    return;
  // new char[] leaves the bytes uninitialized: a 1 GB trace is not zeroed
  // only to be overwritten.
  std::unique_ptr<char[]> New(new char[N + InputPadding]);
  if (Size)
    std::memcpy(New.get(), Data.get(), Size);
  std::memset(New.get() + Size, 0, InputPadding);
  Data = std::move(New);
  Capacity = N;
}

void PaddedBuffer::setSize(size_t N) {
  assert(N <= Capacity && "setSize past the capacity");
  Size = N;
  std::memset(Data.get() + Size, 0, InputPadding);
}

bool dd::import::isGzip(StringRef Bytes) {
  return Bytes.size() >= 2 && uint8_t(Bytes[0]) == 0x1f &&
         uint8_t(Bytes[1]) == 0x8b;
}

/// The size the last gzip member says it decompresses to (modulo 4 GiB),
/// used only as a first guess for the output buffer.
static size_t sizeHint(StringRef Compressed) {
  size_t N = Compressed.size();
  if (N < 18)
    return 4096;
  const auto *P = reinterpret_cast<const uint8_t *>(Compressed.data() + N - 4);
  size_t ISize = P[0] | P[1] << 8 | P[2] << 16 | size_t(P[3]) << 24;
  // Deflate cannot expand more than about 1032:1; a larger claim is garbage
  // (or a >4 GiB member wrapped around), and would only waste memory.
  if (ISize < N || ISize / 1032 > N)
    return N * 4;
  return ISize;
}

/// The default bound of a decompression: the machine's memory.
static uint64_t defaultMaxBytes() {
  uint64_t Memory = dd::machineMemoryBytes();
  return Memory ? Memory : UINT64_MAX;
}

llvm::Error dd::import::gunzip(StringRef Compressed, PaddedBuffer &Out,
                               uint64_t MaxBytes) {
  if (MaxBytes == 0)
    MaxBytes = defaultMaxBytes();
  Out.reserve(std::min<uint64_t>(sizeHint(Compressed), MaxBytes));
  auto Room = [&](size_t Done) -> llvm::MutableArrayRef<char> {
    if (Done == Out.capacity()) {
      if (Done >= MaxBytes)
        return {};
      // The size is set first: reserve() keeps only the bytes up to it.
      Out.setSize(Done);
      Out.reserve(std::min<uint64_t>(Out.capacity() * 2 + 4096, MaxBytes));
    }
    return {Out.writableData() + Done, Out.capacity() - Done};
  };
  size_t Done = 0;
  llvm::Error E = inflateGzip(Compressed, MaxBytes, Room, nullptr, Done);
  Out.setSize(Done);
  return E;
}

size_t InputFile::expectedSize() const {
  return Ahead && !Complete ? ExpectedBytes : Bytes.size();
}

StringRef InputFile::arrived(size_t N) const {
  if (!Ahead || Complete)
    return Bytes.str();
  return {Ahead->data(), Ahead->waitFor(N)};
}

StringRef InputFile::text() const { return arrived(SIZE_MAX); }

llvm::Error InputFile::finishInflating(bool *Redo) {
  if (!Ahead || Complete)
    return llvm::Error::success();
  if (llvm::Error E = Ahead->finish())
    return E;
  if (Ahead->outgrew()) {
    PaddedBuffer Whole;
    if (llvm::Error E = gunzip(Stored, Whole, MaxBytes))
      return E;
    Bytes = std::move(Whole);
    Ahead.reset();
    if (Redo)
      *Redo = true;
  } else {
    Bytes = PaddedBuffer::view(Ahead->data(), Ahead->waitFor(SIZE_MAX));
  }
  Complete = true;
  return llvm::Error::success();
}

Expected<InputFile> dd::import::makeInputFile(StringRef Name, StringRef Stored,
                                              uint64_t MaxBytes) {
  InputFile F;
  F.Name = Name.str();
  F.StoredSize = Stored.size();
  if (!isGzip(Stored)) {
    F.Bytes = PaddedBuffer(Stored);
    return std::move(F);
  }
  F.WasGzip = true;
  if (llvm::Error E = gunzip(Stored, F.Bytes, MaxBytes))
    return makeError(Name + ": " + llvm::toString(std::move(E)));
  return std::move(F);
}

Expected<InputFile> dd::import::makeInputFileAhead(StringRef Name,
                                                   StringRef Stored,
                                                   uint64_t MaxBytes,
                                                   size_t StepBytes,
                                                   bool OnDemand) {
  if (MaxBytes == 0)
    MaxBytes = defaultMaxBytes();
  std::shared_ptr<InflateAhead> Ahead =
      isGzip(Stored) ? InflateAhead::start(Stored, MaxBytes, sizeHint(Stored),
                                           StepBytes, OnDemand)
                     : nullptr;
  if (!Ahead)
    return makeInputFile(Name, Stored, MaxBytes);
  InputFile F;
  F.Name = Name.str();
  F.StoredSize = Stored.size();
  F.WasGzip = true;
  F.Bytes = PaddedBuffer::view(Ahead->data(), 0);
  F.ExpectedBytes = sizeHint(Stored);
  F.Stored = Stored;
  F.MaxBytes = MaxBytes;
  F.Ahead = std::move(Ahead);
  return std::move(F);
}

Expected<InputFile> dd::import::loadInputFile(StringRef Path, uint64_t MaxBytes,
                                              bool InflateAheadOfReader) {
  std::string Name = Path == "-" ? "<stdin>" : Path.str();
  // Memory-mapped when large. A plain file whose last page leaves room for
  // the padding is parsed in place; otherwise the copy into a padded buffer
  // (or the gunzip) is what the parser reads.
  auto BufOr = llvm::MemoryBuffer::getFileOrSTDIN(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (std::error_code EC = BufOr.getError())
    return makeError(Name + ": " + EC.message());
  std::unique_ptr<llvm::MemoryBuffer> &Buf = *BufOr;
  if (!isGzip(Buf->getBuffer()) && canReadPastEnd(*Buf)) {
    InputFile F;
    F.Name = Name;
    F.StoredSize = Buf->getBufferSize();
    F.Bytes = PaddedBuffer::mapped(std::move(Buf));
    return std::move(F);
  }
  if (InflateAheadOfReader && isGzip(Buf->getBuffer())) {
    std::shared_ptr<llvm::MemoryBuffer> Stored = std::move(Buf);
    Expected<InputFile> F = makeInputFileAhead(Name, Stored->getBuffer(),
                                               MaxBytes, size_t(1) << 20);
    if (F && F->Ahead)
      F->StoredBuffer = std::move(Stored);
    return F;
  }
  return makeInputFile(Name, Buf->getBuffer(), MaxBytes);
}

/// FileKind.h spells dd-trace's magic again, for the IR library.
static constexpr bool sameRecordMagic() {
  for (size_t I = 0; I != sizeof(dd::trace::RecordFileMagic); ++I)
    if (dd::CuptiRecordsMagic[I] != dd::trace::RecordFileMagic[I])
      return false;
  return sizeof(dd::CuptiRecordsMagic) ==
         sizeof(dd::trace::RecordFileMagic) + 1;
}
static_assert(sameRecordMagic(), "FileKind.h's CuptiRecordsMagic differs");

InputFormat dd::import::detectFormat(StringRef Bytes) {
  // The name plays no part: these formats are told by content.
  switch (sniffFileKind(/*Name=*/"", Bytes)) {
  case FileKind::NsysSqlite:
    return InputFormat::NsysSqlite;
  case FileKind::CuptiRecords:
    return InputFormat::CuptiRecords;
  case FileKind::Json:
    return InputFormat::KinetoJson;
  default:
    return InputFormat::Unknown;
  }
}
