//===- InputFile.cpp - A trace file's bytes, decompressed and padded ------===//
//
// Loading a file or stdin, gunzip with zlib straight into a padded buffer (so
// that the parser needs no second copy), and format detection by content.
//
//===----------------------------------------------------------------------===//

#include "daydream/Import/InputFile.h"
#include "daydream/IR/FileKind.h"
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

uint64_t dd::import::machineMemoryBytes() {
  long Pages = sysconf(_SC_PHYS_PAGES), Page = sysconf(_SC_PAGE_SIZE);
  if (Pages <= 0 || Page <= 0)
    return UINT64_MAX;
  return uint64_t(Pages) * uint64_t(Page);
}

llvm::Error dd::import::gunzip(StringRef Compressed, PaddedBuffer &Out,
                               uint64_t MaxBytes) {
  if (MaxBytes == 0)
    MaxBytes = machineMemoryBytes();
  z_stream Z{};
  // 16 + MAX_WBITS: expect a gzip header and trailer, not raw zlib.
  if (inflateInit2(&Z, 16 + MAX_WBITS) != Z_OK)
    return makeError("cannot initialize zlib");
  auto Cleanup = llvm::make_scope_exit([&] { inflateEnd(&Z); });
  Out.reserve(std::min<uint64_t>(sizeHint(Compressed), MaxBytes));
  const auto *In = reinterpret_cast<const Bytef *>(Compressed.data());
  size_t InLeft = Compressed.size();
  size_t Done = 0;
  for (;;) {
    if (Done == Out.capacity()) {
      if (Done >= MaxBytes)
        return makeError("decompresses to more than " + llvm::Twine(MaxBytes) +
                         " bytes (-max-input-size)");
      // The size is set first: reserve() keeps only the bytes up to it.
      Out.setSize(Done);
      Out.reserve(std::min<uint64_t>(Out.capacity() * 2 + 4096, MaxBytes));
    }
    // zlib counts in 32-bit uInt; feed huge inputs in slices.
    uInt InChunk = uInt(std::min<size_t>(InLeft, 1u << 30));
    uInt OutChunk = uInt(std::min<size_t>(Out.capacity() - Done, 1u << 30));
    Z.next_in = const_cast<Bytef *>(In);
    Z.avail_in = InChunk;
    Z.next_out = reinterpret_cast<Bytef *>(Out.writableData() + Done);
    Z.avail_out = OutChunk;
    int Rc = inflate(&Z, Z_NO_FLUSH);
    In += InChunk - Z.avail_in;
    InLeft -= InChunk - Z.avail_in;
    Done += OutChunk - Z.avail_out;
    if (Rc == Z_STREAM_END) {
      // Concatenated members (pigz, bgzip, `cat a.gz b.gz`) decompress to
      // the concatenation; anything else after a member is ignored, as
      // gzip -d does with trailing zeros.
      if (!isGzip(StringRef(reinterpret_cast<const char *>(In), InLeft)))
        break;
      if (inflateReset(&Z) != Z_OK)
        return makeError("cannot reset zlib");
      continue;
    }
    if (Rc == Z_DATA_ERROR || Rc == Z_NEED_DICT || Rc == Z_STREAM_ERROR)
      return makeError(llvm::Twine("corrupt gzip stream: ") +
                       (Z.msg ? Z.msg : "invalid data"));
    if (Rc == Z_MEM_ERROR)
      return makeError("out of memory while decompressing");
    // Z_OK or Z_BUF_ERROR: either more output room is needed (the loop
    // grows the buffer) or the input ran out before the end of the stream.
    if (InLeft == 0 && Z.avail_out != 0)
      return makeError("truncated gzip stream");
  }
  Out.setSize(Done);
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

Expected<InputFile> dd::import::loadInputFile(StringRef Path,
                                              uint64_t MaxBytes) {
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
