//===- DaydreamModule.cpp - The daydream Python package's C++ core --------===//
//
// _daydream: the graph, the importers, the pass pipeline and dd-sim's
// simulation, each over the same library call the command-line tools make
// (no second implementation). The Python layer (daydream/__init__.py)
// turns the JSON reports into dicts and Report objects and the warnings
// into Python warnings. Every long call releases the GIL; errors are
// daydream.Error with the tools' messages. docs/Python.md.
//
//===----------------------------------------------------------------------===//

#include "SimulationRun.h"
#include "ToolSupport.h"
#include "daydream/IR/BinaryFormat.h"
#include "daydream/IR/Graph.h"
#include "daydream/IR/IRReader.h"
#include "daydream/IR/RankCopies.h"
#include "daydream/IR/Verifier.h"
#include "daydream/Import/ImportJob.h"
#include "daydream/Import/Importer.h"
#include "daydream/Pass/AnalysisManager.h"
#include "daydream/Pass/PassManager.h"
#include "daydream/Pass/PassRegistry.h"
#include "daydream/Passes/BuiltinPasses.h"
#include "daydream/Plugin/PluginLoader.h"
#include "daydream/Sim/SchedulingPolicy.h"
#include "daydream/Support/Version.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;
using namespace dd;

namespace {

/// daydream.Error: what the tools print after "dd-xxx: ".
struct DaydreamError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class T> T orThrow(llvm::Expected<T> V) {
  if (!V)
    throw DaydreamError(llvm::toString(V.takeError()));
  return std::move(*V);
}

void orThrow(llvm::Error E) {
  if (E)
    throw DaydreamError(llvm::toString(std::move(E)));
}

/// A graph and the name reports give its input (a file's path). Calls
/// that read it in place (the printers, a simulation that changes nothing)
/// hold its lock: a graph builds some indexes the first time they are
/// asked for (its lane links), which two threads must not do at once.
struct PyGraph {
  Graph G;
  std::string Name;
  std::unique_ptr<std::mutex> Lock = std::make_unique<std::mutex>();
};

/// A copy by the binary form: passes and the simulation change the graph
/// they are given, and the caller's stays as it was. Written into memory
/// sized beforehand and read back in place (its task and edge records are
/// used where they lie, as a mapped file's are), so that a copy costs about
/// one write of the file.
Graph copyOf(const Graph &G) {
  llvm::SmallVector<char, 0> Bytes;
  Bytes.reserve(G.numTaskSlots() * sizeof(Task) +
                G.edgeSlots().size() * sizeof(Edge) + (1u << 20));
  llvm::raw_svector_ostream OS(Bytes);
  orThrow(writeBinaryGraph(G, OS));
  auto Buf = std::make_unique<llvm::SmallVectorMemoryBuffer>(
      std::move(Bytes), "<copy>", /*RequiresNullTerminator=*/false);
  llvm::MutableArrayRef<char> Writable(
      const_cast<char *>(Buf->getBufferStart()), Buf->getBufferSize());
  Graph Copy = orThrow(parseBinaryGraphInPlace(Writable));
  orThrow(verifyAsRead(Copy));
  Copy.holdBuffer(std::move(Buf));
  return Copy;
}

/// The result of a call that may warn: the Python layer passes the
/// warnings to warnings.warn() once it holds the GIL again.
template <class T> struct Warned {
  T Value;
  std::vector<std::string> Warnings;
};

Warned<PyGraph> importTraces(const std::vector<std::string> &Paths,
                             bool PythonFunctions, bool SyncEdges,
                             bool CrossStreamEdges, bool InferDeps,
                             bool FoldIdenticalRanks, uint64_t MaxInputSize) {
  if (Paths.empty())
    throw DaydreamError("import_trace: no trace given");
  import::ImportOptions IO;
  IO.Kineto.KeepPythonFunctions = PythonFunctions;
  IO.Lowering.SyncEdges = SyncEdges;
  IO.Lowering.CrossStreamEdges = CrossStreamEdges;
  IO.Lowering.InferDependencies = InferDeps;
  IO.FoldIdenticalRanks = FoldIdenticalRanks;
  IO.MaxInputBytes = MaxInputSize;
  Warned<PyGraph> Out;
  auto Collect = [&](const import::ImportResult &R) {
    for (std::string &W : importWarnings(R))
      Out.Warnings.push_back(std::move(W));
  };
  if (Paths.size() == 1) {
    import::ImportResult R = orThrow(import::importTrace(Paths.front(), IO));
    Collect(R);
    Out.Value.G = std::move(R.G);
  } else {
    import::JobImportResult Job = orThrow(import::importJob(Paths, IO));
    for (const import::ImportResult &R : Job.Ranks)
      Collect(R);
    Out.Warnings.insert(Out.Warnings.end(), Job.Warnings.begin(),
                        Job.Warnings.end());
    Out.Value.G = std::move(Job.G);
  }
  Out.Value.G.metadata().Producer = toolVersion("dd-import");
  Out.Value.Name = Paths.size() == 1 ? Paths.front() : "job";
  // What is read back from a file: the canonical order and the checks.
  Out.Value.G = copyOf(Out.Value.G);
  return Out;
}

PyGraph loadGraph(const std::string &Path) {
  PyGraph Out;
  // In place, as dd-sim reads: the file is mapped privately, and a save
  // over it writes a new file (writeGraphFile()), so the mapping stays. A
  // split job's file reads as the whole job, as in every tool.
  Out.G = orThrow(readInputGraph(Path, GraphUse::ReadInPlace));
  Out.Name = Path;
  return Out;
}

void saveGraph(const PyGraph &G, const std::string &Path, bool Text) {
  orThrow(writeGraphFile(G.G, Path, Text));
}

PassRegistry &registry() {
  static PassRegistry *R = [] {
    auto *Registry = new PassRegistry;
    registerBuiltinPasses(*Registry);
    return Registry;
  }();
  return *R;
}

/// Runs \p PM on \p G (the input called \p Name) as dd-opt does, the
/// printers' output into \p Report and the warnings into \p Warnings.
/// Returns whether it changed the graph.
bool runPipeline(const PassManager &PM, Graph &G, const std::string &Name,
                 std::string &Report, std::vector<std::string> &Warnings) {
  AnalysisManager AM;
  llvm::raw_string_ostream ReportOS(Report);
  AM.setReportStream(ReportOS);
  AM.setWarningHandler(
      [&](llvm::StringRef Message) { Warnings.push_back(Message.str()); });
  bool Changed = false;
  if (llvm::Error E = PM.run(G, AM, PassInstrumentation(), &Changed))
    throw DaydreamError(Name + ": " + llvm::toString(std::move(E)));
  ReportOS.flush();
  return Changed;
}

/// Runs \p Pipeline (dd-opt's -passes= text) on a copy of \p In, as
/// dd-opt does: provenance when it changed the graph, and the verifier's
/// check before it is handed back. \p Report gets the printers' output.
Warned<PyGraph> runPasses(const PyGraph &In, const std::string &Pipeline,
                          std::string &Report) {
  PassManager PM;
  orThrow(registry().parsePipeline(Pipeline, PM));
  Warned<PyGraph> Out;
  Out.Value.G = copyOf(In.G);
  Out.Value.Name = In.Name;
  if (runPipeline(PM, Out.Value.G, In.Name, Report, Out.Warnings))
    recordPipelineRun(Out.Value.G, PM, "daydream.run_passes", In.Name);
  if (!PM.onlyPrinters())
    if (llvm::Error E = verifyGraph(Out.Value.G))
      throw DaydreamError(In.Name + ": the pipeline made an invalid graph: " +
                          llvm::toString(std::move(E)));
  return Out;
}

/// Whether a simulation may change \p G: a job's identical ranks are left
/// out of it (Symmetry.h) and stored rank copies expanded (RankCopies.h).
bool simulationMayChange(const Graph &G) {
  if (hasRankCopies(G))
    return true;
  int32_t Rank = -1;
  for (const Lane &L : G.lanes())
    if (L.Rank >= 0) {
      if (Rank >= 0 && L.Rank != Rank)
        return true;
      Rank = L.Rank;
    }
  return false;
}

/// dd-sim -report=json on \p In: in place where the simulation changes
/// nothing, else on a copy.
std::string simulateJson(PyGraph &In, const std::string &PolicyName,
                         bool Headline) {
  auto Policy = orThrow(createPolicy(PolicyName, {}));
  std::unique_lock<std::mutex> Held(*In.Lock, std::defer_lock);
  llvm::Optional<Graph> Copy;
  if (simulationMayChange(In.G))
    Copy = copyOf(In.G);
  else
    Held.lock();
  Graph &G = Copy ? *Copy : In.G;
  SimulationRequest Req;
  Req.InputName = In.Name;
  Req.Policy = Policy.get();
  Req.Headline = Headline;
  SimulationRun Run;
  orThrow(runSimulation(G, Req, Run));
  std::string Json;
  llvm::raw_string_ostream OS(Json);
  printSimReportJson(G, *Run.R, Run.reportInfo(In.Name, Policy->name()), OS);
  return OS.str();
}

/// A pipeline of printers (print<...>) run on \p In in place: their
/// output, and the warnings.
Warned<std::string> printReports(PyGraph &In, const std::string &Pipeline) {
  PassManager PM;
  orThrow(registry().parsePipeline(Pipeline, PM));
  if (!PM.onlyPrinters())
    throw DaydreamError("'" + Pipeline +
                        "' is not a pipeline of printers (run_passes() "
                        "runs passes that change the graph)");
  Warned<std::string> Out;
  std::lock_guard<std::mutex> Held(*In.Lock);
  runPipeline(PM, In.G, In.Name, Out.Value, Out.Warnings);
  return Out;
}

py::list passList() {
  py::list Out;
  for (const PassInfo *I : registry().passes()) {
    py::list Options;
    for (const PassOptionDoc &D : I->Options())
      Options.append(py::dict(py::arg("name") = D.Key,
                              py::arg("default") = D.Default,
                              py::arg("description") = D.Description));
    Out.append(py::dict(py::arg("name") = I->Name, py::arg("flag") = I->Flag,
                        py::arg("description") = I->Description,
                        py::arg("options") = Options));
  }
  return Out;
}

/// The task records as a NumPy structured array over the graph's own
/// memory (no copy): one row per task slot, the fields of dd::Task.
py::array taskArray(const py::object &Self) {
  const PyGraph &G = Self.cast<const PyGraph &>();
  static_assert(sizeof(Task) == 48, "the dtype below lists Task's fields");
  py::list Names, Formats, Offsets;
  auto Field = [&](const char *Name, const char *Format, size_t Offset) {
    Names.append(Name);
    Formats.append(Format);
    Offsets.append(Offset);
  };
  Field("start_ns", "<i8", offsetof(Task, StartNs));
  Field("duration_ns", "<i8", offsetof(Task, DurationNs));
  Field("gap_ns", "<i8", offsetof(Task, GapNs));
  Field("name", "<u4", offsetof(Task, Name));
  Field("lane", "<u4", offsetof(Task, Lane));
  Field("layer", "<u4", offsetof(Task, Layer));
  Field("correlation", "<u4", offsetof(Task, Correlation));
  Field("attrs", "<u4", offsetof(Task, Attrs));
  Field("kind", "u1", offsetof(Task, Kind));
  Field("phase", "u1", offsetof(Task, Phase));
  Field("flags", "<u2", offsetof(Task, Flags));
  py::dict Spec;
  Spec["names"] = Names;
  Spec["formats"] = Formats;
  Spec["offsets"] = Offsets;
  Spec["itemsize"] = sizeof(Task);
  py::dtype DType = py::dtype::from_args(Spec);
  llvm::ArrayRef<Task> Slots = G.G.taskSlots();
  // Where a graph read in place keeps its records: a private copy-on-write
  // mapping, written by nothing once the graph is made.
  // Read-only: the array lives as long as the graph (its base), and a
  // write would bypass the checks every change to a graph goes through.
  py::array A(DType, {Slots.size()}, {sizeof(Task)}, Slots.data(), Self);
  A.attr("setflags")(py::arg("write") = false);
  return A;
}

py::list laneList(const PyGraph &G) {
  py::list Out;
  for (const Lane &L : G.G.lanes())
    Out.append(py::dict(
        py::arg("name") = L.Name == NoId ? "" : G.G.str(L.Name).str(),
        py::arg("kind") = toString(L.Kind).str(),
        py::arg("device") = L.Device, py::arg("rank") = L.Rank));
  return Out;
}

} // namespace

PYBIND11_MODULE(_daydream, M) {
  M.doc() = "The C++ core of the daydream package (docs/Python.md).";
  static py::exception<DaydreamError> Error(M, "Error", PyExc_RuntimeError);
  // pybind11 takes the pointer by value.
  // NOLINTNEXTLINE(performance-unnecessary-value-param)
  py::register_exception_translator([](std::exception_ptr P) {
    try {
      if (P)
        std::rethrow_exception(P);
    } catch (const DaydreamError &E) {
      PyErr_SetString(Error.ptr(), E.what());
    }
  });
  M.attr("__version__") = toolVersion("daydream");

  py::class_<PyGraph>(M, "Graph")
      .def_property_readonly("name", [](const PyGraph &G) { return G.Name; })
      .def_property_readonly("num_tasks",
                             [](const PyGraph &G) { return G.G.numTasks(); })
      .def_property_readonly(
          "num_edges", [](const PyGraph &G) { return G.G.countLiveEdges(); })
      .def_property_readonly("num_lanes",
                             [](const PyGraph &G) { return G.G.numLanes(); })
      .def_property_readonly(
          "num_memory_events",
          [](const PyGraph &G) { return G.G.memoryEvents().size(); })
      .def("string", [](const PyGraph &G, uint32_t Id) {
        if (Id >= G.G.strings().size())
          throw py::index_error("no string " + std::to_string(Id));
        return G.G.str(Id).str();
      })
      .def("lanes", &laneList)
      .def("tasks", &taskArray)
      .def("save", &saveGraph, py::arg("path"), py::arg("text") = false,
           py::call_guard<py::gil_scoped_release>());

  M.def("load", &loadGraph, py::arg("path"),
        py::call_guard<py::gil_scoped_release>());
  M.def(
      "import_trace",
      [](const std::vector<std::string> &Paths, bool PythonFunctions,
         bool SyncEdges, bool CrossStreamEdges, bool InferDeps,
         bool FoldIdenticalRanks, uint64_t MaxInputSize) {
        Warned<PyGraph> R;
        {
          py::gil_scoped_release Release;
          R = importTraces(Paths, PythonFunctions, SyncEdges,
                           CrossStreamEdges, InferDeps, FoldIdenticalRanks,
                           MaxInputSize);
        }
        return std::make_pair(std::move(R.Value), R.Warnings);
      },
      py::arg("paths"), py::arg("python_functions"), py::arg("sync_edges"),
      py::arg("cross_stream_edges"), py::arg("infer_deps"),
      py::arg("fold_identical_ranks"), py::arg("max_input_size"));
  M.def(
      "run_passes",
      [](const PyGraph &G, const std::string &Pipeline) {
        Warned<PyGraph> R;
        std::string Report;
        {
          py::gil_scoped_release Release;
          R = runPasses(G, Pipeline, Report);
        }
        return py::make_tuple(std::move(R.Value), R.Warnings, Report);
      },
      py::arg("graph"), py::arg("pipeline"));
  M.def(
      "print_reports",
      [](PyGraph &G, const std::string &Pipeline) {
        Warned<std::string> R;
        {
          py::gil_scoped_release Release;
          R = printReports(G, Pipeline);
        }
        return std::make_pair(R.Value, R.Warnings);
      },
      py::arg("graph"), py::arg("pipeline"));
  M.def("simulate_json", &simulateJson, py::arg("graph"),
        py::arg("policy") = "recorded-order", py::arg("headline") = true,
        py::call_guard<py::gil_scoped_release>());
  M.def("passes", &passList);
}
