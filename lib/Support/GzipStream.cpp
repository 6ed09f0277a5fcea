//===- GzipStream.cpp - A raw_ostream that gzips into another -------------===//
//
// zlib's deflate with a gzip wrapper (window bits 15 + 16), level 1.
//
//===----------------------------------------------------------------------===//

#include "daydream/Support/GzipStream.h"
#include "daydream/Support/OutputFile.h"

#include <zlib.h>

#include <vector>

using namespace dd;

struct GzipStream::State {
  z_stream Z{};
  std::vector<unsigned char> Chunk = std::vector<unsigned char>(1 << 18);
  bool Open = false;
};

GzipStream::GzipStream(llvm::raw_ostream &Out)
    : S(std::make_unique<State>()), Out(Out) {
  S->Open = deflateInit2(&S->Z, 1, Z_DEFLATED, 15 + 16, 8,
                         Z_DEFAULT_STRATEGY) == Z_OK;
  Failed = !S->Open;
  SetBufferSize(1 << 18);
}

GzipStream::~GzipStream() {
  flush();
  if (S->Open)
    deflateEnd(&S->Z);
}

void GzipStream::deflateSome(const char *Ptr, size_t Size, bool Finish) {
  if (Failed)
    return;
  z_stream &Z = S->Z;
  Z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(Ptr));
  Z.avail_in = uInt(Size);
  int Flush = Finish ? Z_FINISH : Z_NO_FLUSH;
  for (;;) {
    Z.next_out = S->Chunk.data();
    Z.avail_out = uInt(S->Chunk.size());
    int Ret = deflate(&Z, Flush);
    if (Ret == Z_STREAM_ERROR) {
      Failed = true;
      return;
    }
    Out.write(reinterpret_cast<const char *>(S->Chunk.data()),
              S->Chunk.size() - Z.avail_out);
    if (Finish ? Ret == Z_STREAM_END : Z.avail_out != 0)
      return;
  }
}

void GzipStream::write_impl(const char *Ptr, size_t Size) {
  Pos += Size;
  // zlib counts input in 32 bits.
  while (Size) {
    size_t Part = std::min<size_t>(Size, 1u << 30);
    deflateSome(Ptr, Part, false);
    Ptr += Part;
    Size -= Part;
  }
}

llvm::Error GzipStream::finish() {
  flush();
  deflateSome(nullptr, 0, true);
  if (Failed)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "gzip compression failed");
  return llvm::Error::success();
}

llvm::Error
dd::writeGzippedIfNamed(OutputFile &Out,
                        llvm::function_ref<void(llvm::raw_ostream &)> Write) {
  if (!Out.path().endswith(".gz")) {
    Write(Out.os());
    return llvm::Error::success();
  }
  GzipStream Gz(Out.os());
  Write(Gz);
  if (llvm::Error E = Gz.finish())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   Out.path() + ": " +
                                       llvm::toString(std::move(E)));
  return llvm::Error::success();
}
