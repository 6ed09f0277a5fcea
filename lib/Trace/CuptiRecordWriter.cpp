//===- CuptiRecordWriter.cpp - Writes a .ddrec file -----------------------===//
//
// Frames are appended to a buffer that is written out once it holds a few
// megabytes: CUPTI delivers records in buffers of thousands, and one write()
// per record would cost more than the copy.
//
//===----------------------------------------------------------------------===//

#include "daydream/Trace/CuptiRecordWriter.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace dd::trace;

namespace {
constexpr size_t FlushBytes = 4 << 20;
} // namespace

CuptiRecordWriter::~CuptiRecordWriter() {
  if (Fd >= 0) {
    flush();
    ::close(Fd);
  }
}

bool CuptiRecordWriter::open(const char *Path, uint32_t CuptiRuntimeVersion,
                             uint32_t Pid, uint64_t StartNs, std::string &Err) {
  Fd = ::open(Path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0) {
    Err = std::string("cannot create '") + Path + "': " + std::strerror(errno);
    return false;
  }
  FileHeader H;
  std::memcpy(H.Magic, RecordFileMagic, sizeof(H.Magic));
  H.Version = RecordFileVersion;
  H.CuptiApiVersion = CUPTI_API_VERSION;
  H.CuptiRuntimeVersion = CuptiRuntimeVersion;
  H.Pid = Pid;
  H.StartNs = StartNs;
  H.LayoutSignature = recordLayoutSignature();
  H.Reserved = 0;
  Buffer.reserve(FlushBytes + (64 << 10));
  const char *P = reinterpret_cast<const char *>(&H);
  Buffer.insert(Buffer.end(), P, P + sizeof(H));
  // On disk at once: a process killed before its first flush then leaves a
  // file the reader recognizes as cut short, not an empty one.
  flush();
  return true;
}

void CuptiRecordWriter::addFrame(FrameType Type, const void *Payload,
                                 uint32_t Size, const void *Tail,
                                 uint32_t TailSize) {
  if (Fd < 0)
    return;
  FrameHeader F{static_cast<uint32_t>(Type), Size + TailSize};
  size_t At = Buffer.size();
  Buffer.resize(At + sizeof(F) + paddedSize(F.Size), 0);
  std::memcpy(Buffer.data() + At, &F, sizeof(F));
  std::memcpy(Buffer.data() + At + sizeof(F), Payload, Size);
  if (TailSize)
    std::memcpy(Buffer.data() + At + sizeof(F) + Size, Tail, TailSize);
  if (Buffer.size() >= FlushBytes)
    flush();
}

uint32_t CuptiRecordWriter::internString(const char *S) {
  if (!S)
    return 0;
  auto [It, New] = StringIds.try_emplace(S, uint32_t(StringIds.size() + 1));
  if (New)
    addFrame(FrameType::String, &It->second, sizeof(uint32_t), S,
             uint32_t(It->first.size()));
  return It->second;
}

bool CuptiRecordWriter::addRecord(const CUpti_Activity *Record) {
  RecordLayout L = recordLayout(Record->kind);
  if (L.Size == 0)
    return false;
  // A copy with its pointers replaced: ids for strings, zeros for the rest.
  alignas(8) char Copy[512];
  static_assert(sizeof(DeviceRecord) <= sizeof(Copy) &&
                    sizeof(KernelRecord) <= sizeof(Copy),
                "record copy buffer too small");
  std::memcpy(Copy, Record, L.Size);
  for (uint16_t Off : L.StringFields) {
    if (!Off)
      continue;
    const char *S;
    std::memcpy(&S, Copy + Off, sizeof(S));
    uint64_t Id = internString(S);
    std::memcpy(Copy + Off, &Id, sizeof(Id));
  }
  for (uint16_t Off : L.OtherPointers)
    if (Off)
      std::memset(Copy + Off, 0, sizeof(void *));
  addFrame(FrameType::Record, Copy, L.Size);
  return true;
}

void CuptiRecordWriter::addApiName(uint32_t Domain, uint32_t Cbid,
                                   const char *Name) {
  if (!Name || !NamedApis.try_emplace(uint64_t(Domain) << 32 | Cbid).second)
    return;
  uint32_t Key[2] = {Domain, Cbid};
  addFrame(FrameType::ApiName, Key, sizeof(Key), Name,
           uint32_t(std::strlen(Name)));
}

void CuptiRecordWriter::addDropped(uint64_t Total) {
  addFrame(FrameType::Dropped, &Total, sizeof(Total));
}

void CuptiRecordWriter::addWindow(uint64_t StartNs, uint64_t EndNs) {
  uint64_t Span[2] = {StartNs, EndNs};
  addFrame(FrameType::Window, Span, sizeof(Span));
}

void CuptiRecordWriter::flush() {
  if (Fd < 0)
    return;
  const char *P = Buffer.data();
  size_t Left = Buffer.size();
  while (Left && !WriteErrno) {
    ssize_t N = ::write(Fd, P, Left);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) {
      WriteErrno = N < 0 ? errno : EIO;
      break;
    }
    P += N;
    Left -= size_t(N);
  }
  Buffer.clear();
}

bool CuptiRecordWriter::close(uint64_t EndNs, std::string &Err) {
  if (Fd < 0)
    return true;
  addFrame(FrameType::End, &EndNs, sizeof(EndNs));
  flush();
  if (::close(Fd) != 0 && !WriteErrno)
    WriteErrno = errno;
  Fd = -1;
  // The traced process may run long after its trace ended (or failed to
  // start): give back the megabytes reserved for buffering.
  std::vector<char>().swap(Buffer);
  if (WriteErrno) {
    Err = std::string("cannot write the record file: ") +
          std::strerror(WriteErrno);
    return false;
  }
  return true;
}

void CuptiRecordWriter::abandon() {
  Fd = -1;
  Buffer.clear();
}
