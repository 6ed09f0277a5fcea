//===- Plan.cpp - From options to a job's shape and size ------------------===//
//
// A graph's size follows from its program (Program.h) without making it:
// each rank's graph has a task per API call, per GPU activity and per piece
// of a CPU range's self time of every iteration, a marker at each step's
// start and one at the last step's end
// (the steps are back to back); a job's graph adds an arrive marker per
// collective kernel and a barrier per collective. So -tasks=N is met by
// building programs, not traces: for a few iteration counts around the one
// the family's default depth suggests, a binary search on the layers (the
// size grows with them), keeping the closest.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>

using namespace dd;
using namespace dd::synth;

llvm::StringRef dd::synth::toString(Family F) {
  switch (F) {
  case Family::Cnn:
    return "cnn";
  case Family::Transformer:
    return "transformer";
  case Family::Recommender:
    return "recommender";
  }
  return "?";
}

llvm::Optional<Family> dd::synth::parseFamily(llvm::StringRef S) {
  return llvm::StringSwitch<llvm::Optional<Family>>(S)
      .Case("cnn", Family::Cnn)
      .Case("transformer", Family::Transformer)
      .Case("recommender", Family::Recommender)
      .Default(llvm::None);
}

unsigned dd::synth::defaultLayers(Family F) {
  switch (F) {
  case Family::Cnn:
    return 16; // ResNet-50's bottleneck blocks
  case Family::Transformer:
    return 24; // GPT-2 medium's blocks
  case Family::Recommender:
    return 8; // DLRM's 3 bottom and 5 top... of a larger config
  }
  return 1;
}

namespace {

constexpr unsigned DefaultIterations = 3;
/// Beyond these a plan is a mistake, not a benchmark: 2^32 tasks do not
/// fit the IR's 32-bit ids.
constexpr unsigned MaxLayers = 1u << 20;
constexpr unsigned MaxRanks = 1u << 16;
constexpr uint64_t MaxTasks = uint64_t(UINT32_MAX) - 1;

llvm::Error optionError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// A program's counts, which is all sizing needs.
struct Counts {
  uint64_t PerIteration = 0;  ///< tasks of one rank's iteration
  uint64_t Collectives = 0;   ///< collectives per iteration
  uint64_t TpCollectives = 0; ///< of which on tensor-parallel groups
};

Counts countsOf(Family F, unsigned Layers, unsigned Ranks, unsigned Tp) {
  Program P = buildProgram(F, Layers, Ranks, /*CountOnly=*/true, Tp);
  return Counts{P.Calls + P.Activities + P.Pieces,
                Ranks > 1 ? P.Collectives : 0, P.TpCollectives};
}

/// Fills the plan's sizes for its layers and iterations.
void size(JobPlan &Plan, const Counts &C) {
  uint64_t I = Plan.Iterations, R = Plan.Ranks;
  // A marker at each step's start and one at the last step's end.
  Plan.TasksPerRank = I * C.PerIteration + I + 1;
  Plan.CollectivesPerRank = I * C.Collectives;
  Plan.Tasks = R * Plan.TasksPerRank;
  // An arrive marker per kernel, and a barrier per collective of each
  // group: R / T tensor-parallel groups, T data-parallel ones.
  uint64_t T = Plan.TensorParallel;
  if (R > 1)
    Plan.Tasks += Plan.CollectivesPerRank * R +
                  I * (C.Collectives - C.TpCollectives) * T +
                  I * C.TpCollectives * (R / T);
}

uint64_t tasksOf(const JobPlan &Base, unsigned Layers, unsigned Iterations) {
  JobPlan P = Base;
  P.Layers = Layers;
  P.Iterations = Iterations;
  size(P, countsOf(P.Fam, Layers, P.Ranks, P.TensorParallel));
  return P.Tasks;
}

uint64_t distance(uint64_t A, uint64_t B) { return A > B ? A - B : B - A; }

/// The layers (1..MaxLayers) whose job comes closest to \p Target tasks
/// with \p Iterations iterations.
unsigned bestLayers(const JobPlan &Base, unsigned Iterations, uint64_t Target) {
  // The smallest layer count reaching the target, then it or one less:
  // doubling to bracket it, then halving.
  unsigned Lo = 1, Hi = 1;
  while (Hi < MaxLayers && tasksOf(Base, Hi, Iterations) < Target) {
    Lo = Hi + 1;
    Hi = std::min(2 * Hi, MaxLayers);
  }
  while (Lo < Hi) {
    unsigned Mid = Lo + (Hi - Lo) / 2;
    if (tasksOf(Base, Mid, Iterations) < Target)
      Lo = Mid + 1;
    else
      Hi = Mid;
  }
  if (Lo > 1 && distance(tasksOf(Base, Lo - 1, Iterations), Target) <=
                    distance(tasksOf(Base, Lo, Iterations), Target))
    return Lo - 1;
  return Lo;
}

/// The iterations closest to \p Target tasks with \p Layers layers.
unsigned bestIterations(const JobPlan &Base, unsigned Layers, uint64_t Target) {
  uint64_t One = tasksOf(Base, Layers, 1), Two = tasksOf(Base, Layers, 2);
  uint64_t Step = Two - One; // the size is linear in the iterations
  double Guess = 1 + (double(Target) - double(One)) / double(Step);
  unsigned Best = 1;
  for (double I : {std::floor(Guess), std::ceil(Guess)}) {
    unsigned N = unsigned(std::clamp(I, 1.0, 1e9));
    if (distance(One + (N - 1) * Step, Target) <
        distance(One + (Best - 1) * Step, Target))
      Best = N;
  }
  return Best;
}

} // namespace

llvm::Expected<JobPlan> dd::synth::planJob(const SynthOptions &Opts) {
  if (Opts.Ranks < 1 || Opts.Ranks > MaxRanks)
    return optionError(
        llvm::formatv("-ranks={0}: expected 1 to {1}", Opts.Ranks, MaxRanks));
  if (Opts.Layers > MaxLayers)
    return optionError(llvm::formatv("-layers={0}: expected at most {1}",
                                     Opts.Layers, MaxLayers));
  if (!(Opts.RankJitter >= 0 && Opts.RankJitter <= 0.5)) {
    char Value[32];
    std::snprintf(Value, sizeof(Value), "%g", Opts.RankJitter);
    return optionError(llvm::Twine("-rank-jitter=") + Value +
                       ": expected a fraction from 0 to 0.5");
  }
  if (Opts.Tasks && Opts.Layers && Opts.Iterations)
    return optionError("-tasks with both -layers and -iterations: give at "
                       "most one of them, the other is chosen to fit");
  if (Opts.Tasks > MaxTasks)
    return optionError(llvm::formatv(
        "-tasks={0}: a graph holds at most {1} tasks", Opts.Tasks, MaxTasks));

  if (Opts.TensorParallel < 1 || Opts.Ranks % Opts.TensorParallel != 0)
    return optionError(
        llvm::formatv("-tp={0}: expected a divisor of -ranks={1} (1: none)",
                      Opts.TensorParallel, Opts.Ranks));
  if (Opts.TensorParallel > 1 && Opts.Fam != Family::Transformer)
    return optionError(llvm::formatv(
        "-tp={0}: only the transformer family has tensor-parallel layers",
        Opts.TensorParallel));

  JobPlan Plan;
  Plan.Fam = Opts.Fam;
  Plan.TensorParallel = Opts.TensorParallel;
  Plan.Ranks = Opts.Ranks;
  Plan.Seed = Opts.Seed;
  Plan.IdenticalRanks = Opts.IdenticalRanks;
  Plan.JitterPpm =
      Opts.IdenticalRanks ? 0 : uint32_t(std::llround(Opts.RankJitter * 1e6));
  Plan.Layers = Opts.Layers;
  Plan.Iterations = Opts.Iterations;
  uint64_t Target = Opts.Tasks;
  if (Target) {
    if (Plan.Layers) {
      Plan.Iterations = bestIterations(Plan, Plan.Layers, Target);
    } else if (Plan.Iterations) {
      Plan.Layers = bestLayers(Plan, Plan.Iterations, Target);
    } else {
      // As many iterations as the family's usual depth calls for; then,
      // among a few iteration counts around that, the one nearest it whose
      // best depth comes within 2% of the target (or the closest of all).
      unsigned Deep = defaultLayers(Plan.Fam);
      unsigned Guess = bestIterations(Plan, Deep, Target);
      struct Fit {
        unsigned Layers, Iterations;
        uint64_t Err;
      };
      std::vector<Fit> Fits;
      uint64_t MinErr = UINT64_MAX;
      for (unsigned I = Guess > 2 ? Guess - 2 : 1; I <= Guess + 2; ++I) {
        unsigned L = bestLayers(Plan, I, Target);
        Fits.push_back(Fit{L, I, distance(tasksOf(Plan, L, I), Target)});
        MinErr = std::min(MinErr, Fits.back().Err);
      }
      uint64_t Good = std::max(MinErr, Target / 50);
      const Fit *Best = nullptr;
      for (const Fit &F : Fits)
        if (F.Err <= Good && (!Best || distance(F.Iterations, Guess) <
                                           distance(Best->Iterations, Guess)))
          Best = &F;
      Plan.Layers = Best->Layers;
      Plan.Iterations = Best->Iterations;
    }
  }
  if (!Plan.Layers)
    Plan.Layers = defaultLayers(Plan.Fam);
  if (!Plan.Iterations)
    Plan.Iterations = DefaultIterations;
  size(Plan, countsOf(Plan.Fam, Plan.Layers, Plan.Ranks, Plan.TensorParallel));
  if (Plan.Tasks > MaxTasks)
    return optionError(llvm::formatv(
        "{0} layers, {1} iterations and {2} ranks make {3} tasks; a graph "
        "holds at most {4}",
        Plan.Layers, Plan.Iterations, Plan.Ranks, Plan.Tasks, MaxTasks));
  // A target the family cannot come near (well below its smallest graph)
  // is an error. Above that the closest graph is made: within a few percent
  // at benchmark sizes, coarser for small jobs of many ranks, where one
  // layer more adds a block's tasks on every rank (the summary line says
  // how far).
  uint64_t Smallest = tasksOf(Plan, 1, 1);
  if (Target && Smallest > Target && (Smallest - Target) * 10 > Target)
    return optionError(llvm::formatv(
        "-tasks={0}: the closest {1} job of {2} rank(s) has {3} tasks "
        "({4} layers, {5} iterations); ask for at least {6}",
        Target, toString(Plan.Fam), Plan.Ranks, Plan.Tasks, Plan.Layers,
        Plan.Iterations, Smallest));
  return Plan;
}

std::string dd::synth::describePlan(const JobPlan &Plan) {
  return llvm::formatv("SYNTHETIC trace made by dd-synth -family={0} "
                       "-layers={1} -iterations={2} -ranks={3} -seed={4} "
                       "-rank-jitter={5}{6}{7}",
                       toString(Plan.Fam), Plan.Layers, Plan.Iterations,
                       Plan.Ranks, Plan.Seed,
                       llvm::formatv("{0:f6}", Plan.JitterPpm / 1e6).str(),
                       Plan.IdenticalRanks ? " -identical-ranks" : "",
                       Plan.TensorParallel > 1
                           ? " -tp=" + std::to_string(Plan.TensorParallel)
                           : std::string())
      .str();
}
