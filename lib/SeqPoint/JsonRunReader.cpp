//===- JsonRunReader.cpp - A run described as JSON ------------------------===//
//
// Run descriptions are small (a few numbers an iteration), so the document
// is parsed whole with simdjson's DOM API, which makes the two accepted
// shapes and the Kineto trace easy to tell apart by their root. A value is
// taken as a whole number if it is an integer, or a double with no
// fraction (Python's json writes 12.0 for a float that happens to be
// whole); anything else where a whole number belongs is an error naming
// the entry, since a string "12" usually means a column was mixed up.
//
//===----------------------------------------------------------------------===//

#include "Error.h"
#include "TraceEvents.h"
#include "daydream/Import/InputFile.h"

#include "llvm/ADT/SmallVector.h"

#include <cmath>

using namespace dd;
using namespace dd::seqpoint;
namespace dom = simdjson::dom;

namespace {

/// A number field of one entry: absent, null, or its value.
struct Field {
  bool Present = false;
  bool Null = false;
  bool IsNumber = false;
  double Value = 0;
};

Field field(dom::object Entry, std::string_view Key) {
  Field F;
  dom::element E;
  if (Entry.at_key(Key).get(E) != simdjson::SUCCESS)
    return F;
  F.Present = true;
  switch (E.type()) {
  case dom::element_type::NULL_VALUE:
    F.Null = true;
    break;
  case dom::element_type::INT64:
    F.IsNumber = true;
    F.Value = double(int64_t(E));
    break;
  case dom::element_type::UINT64:
    F.IsNumber = true;
    F.Value = double(uint64_t(E));
    break;
  case dom::element_type::DOUBLE:
    F.IsNumber = true;
    F.Value = double(E);
    break;
  default:
    break;
  }
  return F;
}

llvm::Expected<int64_t> wholeNumber(const std::string &At, dom::object Entry,
                                    llvm::StringRef Key) {
  Field F = field(Entry, std::string_view(Key.data(), Key.size()));
  if (!F.Present || F.Null)
    return makeError(At + ": missing \"" + Key + "\"");
  if (!F.IsNumber || F.Value != std::floor(F.Value) || F.Value > 9e18 ||
      F.Value < -9e18)
    return makeError(At + ": \"" + Key + "\" is not a whole number");
  if (F.Value < 0)
    return makeError(At + ": \"" + Key + "\" is negative");
  return int64_t(F.Value);
}

llvm::Expected<RunProfile> readEntries(const std::string &Name,
                                       dom::array Entries,
                                       const RunReadOptions &Opts) {
  RunProfile Run(Name, Opts.LengthColumns);
  size_t Index = 0;
  for (dom::element E : Entries) {
    std::string At = Name + ": iterations[" + std::to_string(Index++) + "]";
    dom::object Entry;
    if (E.get(Entry) != simdjson::SUCCESS)
      return makeError(At + ": not an object");
    auto Iteration = wholeNumber(At, Entry, "iteration");
    if (!Iteration)
      return Iteration.takeError();
    llvm::SmallVector<int64_t, 4> Lengths;
    for (const std::string &Key : Opts.LengthColumns) {
      auto L = wholeNumber(At, Entry, Key);
      if (!L)
        return L.takeError();
      Lengths.push_back(*L);
    }
    const std::string &TimeKey = Opts.TimeColumn;
    Field T = field(Entry, TimeKey);
    if (T.Present && !T.Null && (!T.IsNumber || !std::isfinite(T.Value)))
      return makeError(llvm::Twine(At) + ": \"" + TimeKey +
                       "\" is not a number");
    if (T.IsNumber && T.Value < 0)
      return makeError(llvm::Twine(At) + ": \"" + TimeKey + "\" is negative");
    Run.add(*Iteration, Lengths, T.IsNumber ? T.Value : -1.0);
  }
  if (llvm::Error Err = finishRun(Run, [&](size_t I) {
        return Name + ": iterations[" + std::to_string(I) + "]";
      }))
    return std::move(Err);
  return std::move(Run);
}

/// Parses \p In whole; the parser must outlive the returned element.
llvm::Expected<dom::element> parse(dom::parser &Parser,
                                   const import::InputFile &In) {
  dom::element Root;
  // InputFile pads its bytes as simdjson requires, so no copy is made.
  auto Err = Parser
                 .parse(reinterpret_cast<const uint8_t *>(In.Bytes.data()),
                        In.Bytes.size(), /*realloc_if_needed=*/false)
                 .get(Root);
  if (Err == simdjson::EMPTY)
    return makeError(In.Name + ": empty file");
  if (Err)
    return makeError(In.Name +
                     ": malformed JSON: " + simdjson::error_message(Err));
  return Root;
}

} // namespace

/// A run description or a trace; with \p TraceOnly, a trace only.
static llvm::Expected<RunProfile> readJson(const import::InputFile &In,
                                           const RunReadOptions &Opts,
                                           bool TraceOnly) {
  dom::parser Parser;
  auto Root = parse(Parser, In);
  if (!Root)
    return Root.takeError();
  dom::array Events, Entries;
  if ((*Root)["traceEvents"].get(Events) == simdjson::SUCCESS)
    return readTraceEvents(In.Name, Events, Opts.Trace);
  if (TraceOnly)
    return makeError(In.Name + ": not a Kineto trace (no traceEvents array)");
  if (Root->get(Entries) == simdjson::SUCCESS ||
      (*Root)["iterations"].get(Entries) == simdjson::SUCCESS)
    return readEntries(In.Name, Entries, Opts);
  return makeError(In.Name +
                   ": not a run (expected [{\"iteration\": N, ...}, ...], "
                   "{\"iterations\": [...]} or a trace's {\"traceEvents\": "
                   "[...]})");
}

llvm::Expected<RunProfile>
dd::seqpoint::readRunJson(const import::InputFile &In,
                          const RunReadOptions &Opts) {
  return readJson(In, Opts, /*TraceOnly=*/false);
}

llvm::Expected<RunProfile>
dd::seqpoint::readRunTrace(const import::InputFile &In,
                           const TraceLengthOptions &Opts) {
  RunReadOptions O;
  O.Trace = Opts;
  return readJson(In, O, /*TraceOnly=*/true);
}
