//===- CsvRunReader.cpp - A run described as CSV --------------------------===//
//
// One iteration a line under a header that names the columns, so that a
// script may add columns (a second length, a loss) without breaking the
// reader. Numbers are checked strictly, character by character, rather than
// with strtod, which would take "inf", "nan", "0x1p3" and " 12" for numbers
// and let a corrupt file through as a plausible run. Every error points at
// line and column, as a compiler would, because these files are written by
// hand and by scripts and the mistake is usually one cell.
//
//===----------------------------------------------------------------------===//

#include "Error.h"
#include "daydream/Import/InputFile.h"
#include "daydream/SeqPoint/RunReaders.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace dd;
using namespace dd::seqpoint;
using llvm::StringRef;

namespace {

/// A cell: its text (trimmed) and its 1-based column in the line.
struct Cell {
  StringRef Text;
  size_t Column;
};

llvm::SmallVector<Cell, 8> splitCells(StringRef Line) {
  llvm::SmallVector<Cell, 8> Cells;
  size_t Start = 0;
  for (;;) {
    size_t Comma = Line.find(',', Start);
    StringRef Raw = Line.slice(Start, Comma);
    size_t Lead = Raw.size() - Raw.ltrim(" \t").size();
    Cells.push_back({Raw.trim(" \t"), Start + Lead + 1});
    if (Comma == StringRef::npos)
      return Cells;
    Start = Comma + 1;
  }
}

bool isDigits(StringRef S) {
  return !S.empty() && llvm::all_of(S, llvm::isDigit);
}

/// A decimal number as CSV writers print them: 12, 12.5, .5, 1e3, 1.5E-2.
bool isDecimal(StringRef S) {
  StringRef Mantissa =
      S.take_until([](char C) { return C == 'e' || C == 'E'; });
  StringRef Exponent = S.drop_front(Mantissa.size());
  auto [Whole, Frac] = Mantissa.split('.');
  bool HasDot = Mantissa.contains('.');
  if (Whole.empty() && Frac.empty())
    return false;
  if ((!Whole.empty() && !isDigits(Whole)) ||
      (HasDot && !Frac.empty() && !isDigits(Frac)))
    return false;
  if (Exponent.empty())
    return true;
  Exponent = Exponent.drop_front();
  Exponent.consume_front("+") || Exponent.consume_front("-");
  return isDigits(Exponent);
}

class CsvReader {
public:
  CsvReader(const import::InputFile &In, const RunReadOptions &Opts)
      : Name(In.Name), Text(In.Bytes.str()), Opts(Opts) {}
  llvm::Expected<RunProfile> read();

private:
  llvm::Error readHeader(StringRef Line);
  llvm::Error readRow(StringRef Line);
  std::string at(size_t Column) const {
    return Name + ":" + std::to_string(LineNo) + ":" + std::to_string(Column);
  }
  llvm::Expected<int64_t> wholeNumber(const Cell &C, StringRef What) const;
  llvm::Expected<double> time(const Cell &C) const;

  std::string Name;
  StringRef Text;
  const RunReadOptions &Opts;
  size_t LineNo = 0;
  /// Column index of iteration, of each length, of time_us.
  size_t IterationCol = 0, TimeCol = 0;
  std::vector<size_t> LengthCols;
  size_t NumColumns = 0;
  bool SawHeader = false;
  llvm::Optional<RunProfile> Run;
  /// Where each iteration was read, for the duplicate check.
  std::vector<std::pair<size_t, size_t>> RowAt;
};

llvm::Error CsvReader::readHeader(StringRef Line) {
  llvm::SmallVector<Cell, 8> Cells = splitCells(Line);
  NumColumns = Cells.size();
  auto Find = [&](StringRef Column) -> llvm::Expected<size_t> {
    for (size_t I = 0; I != Cells.size(); ++I)
      if (Cells[I].Text == Column)
        return I;
    return makeError(Name + ":" + llvm::Twine(LineNo) + ": no '" + Column +
                     "' column (the header is '" + Line.trim() +
                     "'; a run needs iteration, the length columns and "
                     "the time)");
  };
  auto I = Find("iteration");
  if (!I)
    return I.takeError();
  IterationCol = *I;
  for (const std::string &L : Opts.LengthColumns) {
    auto C = Find(L);
    if (!C)
      return C.takeError();
    LengthCols.push_back(*C);
  }
  auto T = Find(Opts.TimeColumn);
  if (!T)
    return T.takeError();
  TimeCol = *T;
  Run.emplace(Name, Opts.LengthColumns);
  return llvm::Error::success();
}

llvm::Expected<int64_t> CsvReader::wholeNumber(const Cell &C,
                                               StringRef What) const {
  if (C.Text.empty())
    return makeError(at(C.Column) + ": missing " + What);
  if (C.Text.startswith("-") && isDigits(C.Text.drop_front()))
    return makeError(at(C.Column) + ": " + What + " " + C.Text +
                     " is negative");
  int64_t V;
  if (!isDigits(C.Text) || C.Text.getAsInteger(10, V))
    return makeError(at(C.Column) + ": " + What + " '" + C.Text +
                     "' is not a whole number");
  return V;
}

llvm::Expected<double> CsvReader::time(const Cell &C) const {
  if (C.Text.empty())
    return -1.0;
  if (C.Text.startswith("-") && isDecimal(C.Text.drop_front()))
    return makeError(at(C.Column) + ": " + Opts.TimeColumn + " " + C.Text +
                     " is negative");
  double V;
  if (!isDecimal(C.Text) || C.Text.getAsDouble(V) || !std::isfinite(V))
    return makeError(at(C.Column) + ": " + Opts.TimeColumn + " '" + C.Text +
                     "' is not a number");
  return V;
}

llvm::Error CsvReader::readRow(StringRef Line) {
  llvm::SmallVector<Cell, 8> Cells = splitCells(Line);
  if (Cells.size() != NumColumns)
    return makeError(Name + ":" + llvm::Twine(LineNo) + ": " +
                     llvm::Twine(Cells.size()) +
                     " fields where the header has " + llvm::Twine(NumColumns));
  auto Iteration = wholeNumber(Cells[IterationCol], "iteration");
  if (!Iteration)
    return Iteration.takeError();
  llvm::SmallVector<int64_t, 4> Lengths;
  for (size_t I = 0; I != LengthCols.size(); ++I) {
    auto L = wholeNumber(Cells[LengthCols[I]], Opts.LengthColumns[I]);
    if (!L)
      return L.takeError();
    Lengths.push_back(*L);
  }
  auto Time = time(Cells[TimeCol]);
  if (!Time)
    return Time.takeError();
  Run->add(*Iteration, Lengths, *Time);
  RowAt.push_back({LineNo, Cells[IterationCol].Column});
  return llvm::Error::success();
}

llvm::Expected<RunProfile> CsvReader::read() {
  StringRef Rest = Text;
  Rest.consume_front("\xEF\xBB\xBF");
  bool AnyContent = false;
  while (!Rest.empty()) {
    auto [Line, Next] = Rest.split('\n');
    Rest = Next;
    ++LineNo;
    Line = Line.rtrim("\r");
    StringRef Trimmed = Line.trim(" \t");
    if (Trimmed.empty() || Trimmed.startswith("#"))
      continue;
    AnyContent = true;
    llvm::Error E = SawHeader ? readRow(Line) : readHeader(Line);
    if (E)
      return std::move(E);
    SawHeader = true;
  }
  if (!AnyContent)
    return makeError(Name + ": empty file");
  if (Run->size() == 0)
    return makeError(Name + ": no iterations after the header");
  if (llvm::Error E = finishRun(*Run, [&](size_t I) {
        return Name + ":" + std::to_string(RowAt[I].first) + ":" +
               std::to_string(RowAt[I].second);
      }))
    return std::move(E);
  return std::move(*Run);
}

} // namespace

llvm::Expected<RunProfile>
dd::seqpoint::readRunCsv(const import::InputFile &In,
                         const RunReadOptions &Opts) {
  return CsvReader(In, Opts).read();
}
