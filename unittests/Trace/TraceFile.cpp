//===- TraceFile.cpp - Reads back what the tracer wrote, for tests --------===//

#include "TraceFile.h"

#include <dirent.h>
#include <fstream>
#include <iterator>

using namespace dd::trace;
using namespace dd::trace::testing;

std::vector<const Frame *> TraceFile::frames(FrameType Type) const {
  std::vector<const Frame *> Out;
  for (const Frame &F : Frames)
    if (F.Type == Type)
      Out.push_back(&F);
  return Out;
}

std::vector<const Frame *> TraceFile::records(CUpti_ActivityKind Kind) const {
  std::vector<const Frame *> Out;
  for (const Frame *F : frames(FrameType::Record))
    if (F->kind() == Kind)
      Out.push_back(F);
  return Out;
}

std::vector<std::string> TraceFile::kernelNames() const {
  std::vector<std::string> Out;
  for (const Frame *F : records(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
    uint64_t Id = F->as<uint64_t>(offsetof(KernelRecord, name));
    auto It = Strings.find(Id);
    Out.push_back(It == Strings.end() ? "<no string " + std::to_string(Id) + ">"
                                      : It->second);
  }
  return Out;
}

std::vector<uint32_t>
TraceFile::apiCorrelations(CUpti_ActivityKind Kind) const {
  std::vector<uint32_t> Out;
  for (const Frame *F : records(Kind))
    Out.push_back(F->as<uint32_t>(offsetof(ApiRecord, correlationId)));
  return Out;
}

TraceFile dd::trace::testing::readTraceFile(const std::string &Path) {
  TraceFile File;
  std::ifstream In(Path, std::ios::binary);
  std::vector<char> Bytes((std::istreambuf_iterator<char>(In)),
                          std::istreambuf_iterator<char>());
  if (!In.good() && !In.eof()) {
    File.Error = "cannot read " + Path;
    return File;
  }
  if (Bytes.size() < sizeof(FileHeader)) {
    File.Error = "no header";
    return File;
  }
  std::memcpy(&File.Header, Bytes.data(), sizeof(FileHeader));
  if (std::memcmp(File.Header.Magic, RecordFileMagic, 8) != 0) {
    File.Error = "bad magic";
    return File;
  }
  size_t At = sizeof(FileHeader);
  while (At < Bytes.size()) {
    FrameHeader H;
    if (Bytes.size() - At < sizeof(H)) {
      File.Error = "partial frame header at " + std::to_string(At);
      return File;
    }
    std::memcpy(&H, Bytes.data() + At, sizeof(H));
    At += sizeof(H);
    if (Bytes.size() - At < paddedSize(H.Size)) {
      File.Error = "partial frame at " + std::to_string(At);
      return File;
    }
    for (uint64_t I = H.Size; I < paddedSize(H.Size); ++I)
      if (Bytes[At + I] != 0)
        File.Error = "nonzero padding at " + std::to_string(At + I);
    Frame F{FrameType(H.Type),
            std::vector<char>(Bytes.begin() + At, Bytes.begin() + At + H.Size)};
    if (F.Type == FrameType::Record && H.Size != recordLayout(F.kind()).Size)
      File.Error = "record of kind " + std::to_string(F.kind()) + " has size " +
                   std::to_string(H.Size);
    if (F.Type == FrameType::String)
      File.Strings[F.as<uint32_t>()] =
          std::string(F.Payload.begin() + 4, F.Payload.end());
    File.Frames.push_back(std::move(F));
    At += paddedSize(H.Size);
  }
  return File;
}

std::vector<std::string> dd::trace::testing::listDir(const std::string &Dir) {
  std::vector<std::string> Out;
  if (DIR *D = opendir(Dir.c_str())) {
    while (dirent *E = readdir(D))
      if (std::strcmp(E->d_name, ".") != 0 && std::strcmp(E->d_name, "..") != 0)
        Out.push_back(E->d_name);
    closedir(D);
  }
  return Out;
}
