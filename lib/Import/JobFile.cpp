//===- JobFile.cpp - The file that makes several .ddir files one job ------===//

#include "daydream/Import/JobFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace dd;
using namespace dd::import;
using llvm::StringRef;

namespace {

/// "0,2,4" -> {0, 2, 4}, sorted, each rank once.
bool parseMembers(StringRef Text, std::vector<int32_t> &Out) {
  llvm::SmallVector<StringRef, 16> Items;
  Text.split(Items, ',');
  for (StringRef I : Items) {
    int32_t R = 0;
    if (I.getAsInteger(10, R) || R < 0)
      return false;
    Out.push_back(R);
  }
  std::sort(Out.begin(), Out.end());
  return !Out.empty() &&
         std::adjacent_find(Out.begin(), Out.end()) == Out.end();
}

class Parser {
public:
  /// \p Header: the first line's word; \p Part: ranks may be missing (a
  /// rank's collective table lists itself alone).
  Parser(StringRef Name, StringRef Header, bool Part)
      : Name(Name), Header(Header), Part(Part) {}
  llvm::Expected<JobFile> run(StringRef Text);

private:
  llvm::Error fail(const llvm::Twine &What) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   Name + ":" + llvm::Twine(Line) + ": " +
                                       What);
  }
  /// Takes "KEY VALUE" off the front of \p Rest.
  bool field(StringRef &Rest, StringRef Key, StringRef &Value) const {
    auto [K, AfterKey] = getToken(Rest);
    if (K != Key)
      return false;
    auto [V, After] = getToken(AfterKey);
    if (V.empty())
      return false;
    Value = V;
    Rest = After;
    return true;
  }
  static std::pair<StringRef, StringRef> getToken(StringRef S) {
    S = S.ltrim(" \t");
    size_t End = S.find_first_of(" \t");
    return {S.substr(0, End),
            End == StringRef::npos ? StringRef() : S.substr(End)};
  }
  llvm::Error rankLine(StringRef Rest, JobFile &J);
  llvm::Error groupLine(StringRef Rest, JobFile &J);

  StringRef Name;
  StringRef Header;
  bool Part;
  size_t Line = 0;
};

llvm::Error Parser::rankLine(StringRef Rest, JobFile &J) {
  const char *Form =
      "expected 'rank N bytes N xxh64 HEX origin-ns N file NAME', the form "
      "dd-import -split writes";
  StringRef RankText, BytesText, HashText, OriginText;
  JobFile::Rank R;
  auto [RT, AfterRank] = getToken(Rest);
  RankText = RT;
  Rest = AfterRank;
  if (RankText.getAsInteger(10, R.Rank) || !field(Rest, "bytes", BytesText) ||
      BytesText.getAsInteger(10, R.Bytes) || !field(Rest, "xxh64", HashText) ||
      HashText.size() != 16 || HashText.getAsInteger(16, R.Hash) ||
      !field(Rest, "origin-ns", OriginText) ||
      OriginText.getAsInteger(10, R.OriginNs))
    return fail(Form);
  Rest = Rest.ltrim(" \t");
  if (!Rest.consume_front("file") || Rest.empty() ||
      (Rest.front() != ' ' && Rest.front() != '\t'))
    return fail(Form);
  R.File = Rest.trim(" \t\r").str();
  if (R.File.empty())
    return fail(Form);
  if (J.World == 0)
    return fail("a rank before the 'world' line");
  if (R.Rank < 0 || R.Rank >= J.World)
    return fail(llvm::formatv("rank {0} is outside the job's world of {1}",
                              R.Rank, J.World)
                    .str());
  J.Ranks.push_back(std::move(R));
  return llvm::Error::success();
}

llvm::Error Parser::groupLine(StringRef Rest, JobFile &J) {
  const char *Form = "expected 'group ranks R,R,... collectives N [name NAME]'";
  StringRef MembersText, CountText;
  JobFile::Group G;
  if (!field(Rest, "ranks", MembersText) ||
      !parseMembers(MembersText, G.Members) ||
      !field(Rest, "collectives", CountText) ||
      CountText.getAsInteger(10, G.Collectives))
    return fail(Form);
  Rest = Rest.trim(" \t\r");
  if (!Rest.empty()) {
    if (!Rest.consume_front("name") || Rest.empty() ||
        (Rest.front() != ' ' && Rest.front() != '\t'))
      return fail(Form);
    G.Name = Rest.trim(" \t").str();
    if (G.Name.empty())
      return fail(Form);
  }
  if (J.World == 0)
    return fail("a group before the 'world' line");
  if (G.Members.back() >= J.World)
    return fail(llvm::formatv("group member {0} is outside the job's world "
                              "of {1}",
                              G.Members.back(), J.World)
                    .str());
  J.Groups.push_back(std::move(G));
  return llvm::Error::success();
}

llvm::Expected<JobFile> Parser::run(StringRef Text) {
  JobFile J;
  bool SawHeader = false;
  while (!Text.empty()) {
    auto [Raw, Rest] = Text.split('\n');
    Text = Rest;
    ++Line;
    StringRef L = Raw.trim(" \t\r");
    if (L.empty() || L.startswith(";"))
      continue;
    auto [Key, Args] = getToken(L);
    if (!SawHeader) {
      unsigned V = 0;
      if (Key != Header || Args.trim().getAsInteger(10, V))
        return fail(llvm::formatv("not a {0} file (expected '{0} {1}' first)",
                                  Header, JobFile::Version)
                        .str());
      if (V != JobFile::Version)
        return fail(llvm::formatv("unsupported {0} file version {1} (this "
                                  "build reads version {2})",
                                  Header, V, JobFile::Version)
                        .str());
      SawHeader = true;
      continue;
    }
    if (Key == "world") {
      if (J.World != 0)
        return fail("a second 'world' line");
      if (Args.trim().getAsInteger(10, J.World) || J.World <= 0)
        return fail("expected 'world N' with N a positive number of ranks");
    } else if (Key == "rank") {
      if (llvm::Error E = rankLine(Args, J))
        return std::move(E);
    } else if (Key == "group") {
      if (llvm::Error E = groupLine(Args, J))
        return std::move(E);
    } else {
      return fail("unknown line '" + Key + "' (expected world, rank or group)");
    }
  }
  ++Line;
  if (!SawHeader)
    return fail(llvm::formatv("empty file (expected '{0} {1}' first)", Header,
                              JobFile::Version)
                    .str());
  if (J.World == 0)
    return fail("no 'world' line");
  std::stable_sort(J.Ranks.begin(), J.Ranks.end(),
                   [](const JobFile::Rank &A, const JobFile::Rank &B) {
                     return A.Rank < B.Rank;
                   });
  for (size_t I = 1; I < J.Ranks.size(); ++I)
    if (J.Ranks[I].Rank == J.Ranks[I - 1].Rank)
      return fail(llvm::formatv("rank {0} is listed twice ({1} and {2})",
                                J.Ranks[I].Rank, J.Ranks[I - 1].File,
                                J.Ranks[I].File)
                      .str());
  if (!Part && J.Ranks.size() != size_t(J.World)) {
    // The first eight missing ranks: a walk as long as the ranks listed,
    // not the world, which a damaged line can make two billion ranks.
    std::vector<std::string> Missing;
    size_t Next = 0;
    for (int32_t R = 0; R != J.World && Missing.size() < 8; ++R) {
      if (Next < J.Ranks.size() && J.Ranks[Next].Rank == R)
        ++Next;
      else
        Missing.push_back(std::to_string(R));
    }
    return fail(llvm::formatv("the job's world is {0} ranks, but {1} are "
                              "listed (missing: {2}{3})",
                              J.World, J.Ranks.size(),
                              llvm::join(Missing, ", "),
                              J.World - J.Ranks.size() > 8 ? ", ..." : "")
                    .str());
  }
  return std::move(J);
}

} // namespace

llvm::Expected<JobFile> dd::import::parseJobFile(StringRef Name,
                                                 StringRef Text) {
  return Parser(Name, "ddjob", /*Part=*/false).run(Text);
}

llvm::Expected<JobFile>
dd::import::parseJobFilePart(StringRef Name, StringRef Header, StringRef Text) {
  return Parser(Name, Header, /*Part=*/true).run(Text);
}

void dd::import::printRankLine(const JobFile::Rank &R, llvm::raw_ostream &OS) {
  OS << "rank " << R.Rank << " bytes " << R.Bytes << " xxh64 "
     << llvm::format_hex_no_prefix(R.Hash, 16) << " origin-ns " << R.OriginNs
     << " file " << R.File << "\n";
}

void dd::import::printJobFile(const JobFile &J, llvm::raw_ostream &OS) {
  OS << "ddjob " << JobFile::Version << "\n"
     << "; a job split over files (dd-import -split): each rank's graph, "
        "and the\n"
     << "; process groups its collectives were matched in (docs/SplitJobs.md)"
        "\n"
     << "world " << J.World << "\n";
  for (const JobFile::Rank &R : J.Ranks)
    printRankLine(R, OS);
  for (const JobFile::Group &G : J.Groups) {
    OS << "group ranks ";
    for (size_t I = 0; I != G.Members.size(); ++I)
      OS << (I ? "," : "") << G.Members[I];
    OS << " collectives " << G.Collectives;
    if (!G.Name.empty())
      OS << " name " << G.Name;
    OS << "\n";
  }
}
