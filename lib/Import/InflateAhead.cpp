//===- InflateAhead.cpp - Gunzip beside the parser ------------------------===//

#include "InflateAhead.h"
#include "daydream/Import/InputFile.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <zlib.h>

using namespace dd::import;
using llvm::StringRef;

static llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

llvm::Error dd::import::inflateGzip(StringRef Compressed, uint64_t MaxBytes,
                                    InflateRoomFn Room,
                                    llvm::function_ref<void(size_t)> Arrived,
                                    size_t &Done) {
  Done = 0;
  z_stream Z{};
  // 16 + MAX_WBITS: expect a gzip header and trailer, not raw zlib.
  if (inflateInit2(&Z, 16 + MAX_WBITS) != Z_OK)
    return makeError("cannot initialize zlib");
  auto Cleanup = llvm::make_scope_exit([&] { inflateEnd(&Z); });
  const auto *In = reinterpret_cast<const Bytef *>(Compressed.data());
  size_t InLeft = Compressed.size();
  for (;;) {
    llvm::MutableArrayRef<char> Space = Room(Done);
    if (Space.empty())
      return makeError("decompresses to more than " + llvm::Twine(MaxBytes) +
                       " bytes (-max-input-size)");
    // zlib counts in 32-bit uInt; feed huge inputs in slices.
    uInt InChunk = uInt(std::min<size_t>(InLeft, 1u << 30));
    uInt OutChunk = uInt(std::min<size_t>(Space.size(), 1u << 30));
    Z.next_in = const_cast<Bytef *>(In);
    Z.avail_in = InChunk;
    Z.next_out = reinterpret_cast<Bytef *>(Space.data());
    Z.avail_out = OutChunk;
    int Rc = inflate(&Z, Z_NO_FLUSH);
    In += InChunk - Z.avail_in;
    InLeft -= InChunk - Z.avail_in;
    Done += OutChunk - Z.avail_out;
    if (Arrived)
      Arrived(Done);
    if (Rc == Z_STREAM_END) {
      // Concatenated members (pigz, bgzip, `cat a.gz b.gz`) decompress to
      // the concatenation; anything else after a member is ignored, as
      // gzip -d does with trailing zeros.
      if (!isGzip(StringRef(reinterpret_cast<const char *>(In), InLeft)))
        return llvm::Error::success();
      if (inflateReset(&Z) != Z_OK)
        return makeError("cannot reset zlib");
      continue;
    }
    if (Rc == Z_DATA_ERROR || Rc == Z_NEED_DICT || Rc == Z_STREAM_ERROR)
      return makeError(llvm::Twine("corrupt gzip stream: ") +
                       (Z.msg ? Z.msg : "invalid data"));
    if (Rc == Z_MEM_ERROR)
      return makeError("out of memory while decompressing");
    // Z_OK or Z_BUF_ERROR: either more output room is needed (the next
    // step asks for it) or the input ran out before the end of the stream.
    if (InLeft == 0 && Z.avail_out != 0)
      return makeError("truncated gzip stream");
  }
}

std::unique_ptr<InflateAhead>
InflateAhead::start(StringRef Compressed, uint64_t MaxBytes, uint64_t Capacity,
                    size_t StepBytes, bool OnDemand) {
  Capacity = std::min(Capacity, MaxBytes);
  if (Capacity > SIZE_MAX / 2 || StepBytes == 0)
    return nullptr;
  // Heap memory, for the bytes to go back to the allocator afterwards: the
  // tools keep freed memory (keepFreedMemory()), so the lowering that
  // follows reuses these pages instead of faulting in its own (0.31-0.35 s
  // against 0.61-0.73 s for the benchmark's lowering, docs/Import.md).
  const size_t Reserved = size_t(Capacity) + InputPadding;
  char *Base = new (std::nothrow) char[Reserved];
  if (!Base)
    return nullptr;
#ifdef MADV_HUGEPAGE
  // Fresh memory costs more than inflating into it: 158 MB of JSON took
  // zlib 0.55-0.59 s into 4 KiB pages faulted one by one on the
  // development VM, 0.15 s into huge pages (0.14 s into memory already
  // faulted in). Where the kernel must first compact memory to find huge
  // pages (FreshMemory.h), the wait falls on this thread, not the parser.
  constexpr uintptr_t Huge = uintptr_t(2) << 20;
  const uintptr_t From = reinterpret_cast<uintptr_t>(Base);
  const uintptr_t First = (From + Huge - 1) / Huge * Huge;
  const uintptr_t Last = (From + Reserved) / Huge * Huge;
  if (Last > First)
    (void)madvise(Base + (First - From), Last - First, MADV_HUGEPAGE);
#endif
  std::unique_ptr<InflateAhead> A(new InflateAhead(
      Compressed, MaxBytes, Capacity, StepBytes, OnDemand, Base));
  A->Worker = std::thread([Self = A.get()] { Self->run(); });
  return A;
}

InflateAhead::InflateAhead(StringRef Compressed, uint64_t MaxBytes,
                           uint64_t Capacity, size_t StepBytes, bool OnDemand,
                           char *Base)
    : Compressed(Compressed), MaxBytes(MaxBytes), Capacity(Capacity),
      StepBytes(StepBytes), OnDemand(OnDemand), Base(Base) {}

InflateAhead::~InflateAhead() {
  {
    std::lock_guard<std::mutex> L(M);
    Stop = true;
  }
  CV.notify_all();
  if (Worker.joinable())
    Worker.join();
  delete[] Base;
}

void InflateAhead::run() {
  // A megabyte a step (by default): the parser sees the bytes soon after
  // they land, and the lock is taken a few hundred times a second at most.
  auto Room = [&](size_t Done) -> llvm::MutableArrayRef<char> {
    if (Stop || Done >= Capacity)
      return {};
    return {Base + Done, std::min<uint64_t>(StepBytes, Capacity - Done)};
  };
  auto Publish = [&](size_t Done) {
    std::unique_lock<std::mutex> L(M);
    Arrived.store(Done, std::memory_order_release);
    CV.notify_all();
    if (OnDemand)
      CV.wait(L, [&] { return Stop || Wanted > Done; });
  };
  size_t Done = 0;
  llvm::Error E = inflateGzip(Compressed, MaxBytes, Room, Publish, Done);
  // Full short of the bound: the trailer's size was not the text's.
  const bool Short = E && !Stop && Done == Capacity && Capacity < MaxBytes;
  std::string Why = E ? llvm::toString(std::move(E)) : std::string();
  std::memset(Base + Done, 0, InputPadding);
  {
    std::lock_guard<std::mutex> L(M);
    Ended = true;
    Outgrew = Short;
    if (!Short)
      Failure = std::move(Why);
  }
  CV.notify_all();
}

size_t InflateAhead::waitFor(size_t N) {
  size_t Now = Arrived.load(std::memory_order_acquire);
  if (Now >= N)
    return Now;
  std::unique_lock<std::mutex> L(M);
  if (N > Wanted) {
    Wanted = N;
    CV.notify_all();
  }
  CV.wait(L, [&] { return Ended || Arrived.load() >= N; });
  return Arrived.load(std::memory_order_acquire);
}

bool InflateAhead::outgrew() {
  std::lock_guard<std::mutex> L(M);
  return Outgrew;
}

llvm::Error InflateAhead::finish() {
  std::unique_lock<std::mutex> L(M);
  Wanted = SIZE_MAX;
  CV.notify_all();
  CV.wait(L, [&] { return Ended; });
  if (!Failure.empty())
    return makeError(Failure);
  return llvm::Error::success();
}
