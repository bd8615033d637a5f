// A mutation fuzzer of `minitf run`'s inputs, run as an ordinary test:
// mutants of TensorFlow's fixture graphs (tests/fixtures/tf/) and of their
// .npy feeds, made from a fixed seed, each run by RunGraph (on the CPU, and
// every fourth on SimGPU) with a deadline. Each ends within its deadline,
// with the graph's answer or an error whose code says what kind of input was
// at fault (never INTERNAL or UNKNOWN, never a crash or a hang), and whose
// message is short and echoes no raw byte of the files (node names may hold
// any byte: `minitf run` escapes them when it prints, run_cli_test.sh).
//
// Byte mutations work on a file's bytes (flip, insert, delete, repeat,
// truncate); graph mutations on the parsed GraphDef (an int attr made
// extreme, a shape attr made huge, a dtype changed, an input renamed or
// dropped, a node's op swapped for another of the graph's); feed mutations
// on a .npy file's header and data.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/harness/jobs/run_graph.h"
#include "gtest/gtest.h"
#include "platform/file.h"
#include "runtime/graph_def_io.h"
#include "tests/testlib/test_files.h"

namespace minitf::harness {
namespace {

using Rng = std::mt19937_64;

constexpr uint64_t kSeed = 20261127;
constexpr int kMutantsPerCase = 150;
constexpr double kDeadlineSeconds = 2.0;

const std::string kFixtures = std::string(MINITF_SOURCE_DIR) + "/tests/fixtures/tf/";

// A fixture graph and how to run it.
struct Case {
  std::string dir;
  std::vector<std::string> init;
  std::vector<std::string> targets;
  std::vector<std::pair<std::string, std::string>> feeds;  // tensor, .npy under dir
  std::vector<std::string> fetches;
};

std::vector<Case> Cases() {
  return {
      {"mlp_frozen", {}, {}, {{"x:0", "x.npy"}}, {"probs:0"}},
      {"linear_gd", {"init"}, {"train"}, {{"x:0", "x.npy"}, {"y:0", "y.npy"}}, {"w/read:0"}},
      {"cond_v1", {}, {}, {}, {}},
      {"while_loop_v1", {}, {}, {}, {}},
  };
}

int64_t Pick(Rng& rng, int64_t n) {
  return static_cast<int64_t>(std::uniform_int_distribution<uint64_t>(0, n - 1)(rng));
}

std::string MutateBytes(std::string bytes, Rng& rng) {
  if (bytes.empty()) return "x";
  const size_t at = static_cast<size_t>(Pick(rng, static_cast<int64_t>(bytes.size())));
  switch (Pick(rng, 5)) {
    case 0: bytes[at] = static_cast<char>(bytes[at] ^ (1 << Pick(rng, 8))); break;
    case 1: bytes.insert(at, 1, static_cast<char>(Pick(rng, 256))); break;
    case 2: bytes.erase(at, 1 + static_cast<size_t>(Pick(rng, 16))); break;
    case 3: bytes.insert(at, bytes.substr(at, 1 + static_cast<size_t>(Pick(rng, 64)))); break;
    default: bytes.resize(at); break;
  }
  return bytes;
}

// One change to the graph's structure.
void MutateGraph(GraphDef* graph, Rng& rng) {
  if (graph->node.empty()) return;
  NodeDef& node = graph->node[static_cast<size_t>(Pick(rng, graph->node.size()))];
  constexpr int64_t kExtremes[] = {-1, 0, 1, int64_t{1} << 31, int64_t{1} << 40, INT64_MAX};
  switch (Pick(rng, 6)) {
    case 0:  // An int attr made extreme, or a new one.
      node.attr[Pick(rng, 2) == 0 ? "N" : "axis"] = kExtremes[Pick(rng, 6)];
      break;
    case 1:  // A shape attr made huge.
      node.attr["shape"] = PartialTensorShape({kExtremes[Pick(rng, 6)], 3});
      break;
    case 2: {  // A dtype changed.
      constexpr DataType kTypes[] = {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_BOOL, DT_RESOURCE};
      for (auto& [name, value] : node.attr) {
        if (name == "T" || name == "dtype") value = kTypes[Pick(rng, 6)];
      }
      break;
    }
    case 3:  // An input renamed.
      if (!node.input.empty()) {
        node.input[static_cast<size_t>(Pick(rng, node.input.size()))] =
            Pick(rng, 2) == 0 ? "no_such_node" : node.name;
      }
      break;
    case 4:  // An input dropped.
      if (!node.input.empty()) node.input.pop_back();
      break;
    default:  // The op swapped for another of the graph's.
      node.op = graph->node[static_cast<size_t>(Pick(rng, graph->node.size()))].op;
      break;
  }
}

// The codes a bad input may end with: each says what was wrong with it.
bool IsInputError(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kAborted:
      return true;
    default:
      return false;
  }
}

// No control character but in a node's name (quoted after "Node '" or
// "node "), which the graph chose.
bool PrintableOutsideNodeNames(absl::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (static_cast<unsigned char>(text[i]) >= 0x20 || text[i] == '\n') continue;
    const size_t quote = text.rfind("Node '", i);
    const size_t plain = text.rfind("node ", i);
    const size_t named = std::max(quote == absl::string_view::npos ? 0 : quote + 1,
                                  plain == absl::string_view::npos ? 0 : plain + 1);
    if (named == 0) return false;
  }
  return true;
}

// How the mutants ended, by status code (OK included).
using Outcomes = std::map<absl::StatusCode, int>;

// Runs `options` and checks how it ends; `what` describes the mutant.
void ExpectBoundedEnd(RunGraphOptions options, int mutant, const std::string& what,
                      Outcomes* outcomes) {
  options.timeout_seconds = kDeadlineSeconds;
  options.device = mutant % 4 == 3 ? "GPU" : "CPU";
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<RunGraphResult> result = RunGraph(options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SCOPED_TRACE(absl::StrCat("mutant ", mutant, " (", what, ") on ", options.device));
  // Each Run has the deadline; a mutant runs at most init, one step and a
  // fetch, plus reading and creating.
  EXPECT_LT(seconds, 4 * kDeadlineSeconds + 10);
  ++(*outcomes)[result.status().code()];
  if (std::getenv("MINITF_FUZZ_VERBOSE") != nullptr) {
    std::printf("%d %s: %s\n", mutant, what.c_str(), result.status().ToString().c_str());
  }
  if (result.ok()) return;
  EXPECT_TRUE(IsInputError(result.status().code())) << result.status();
  EXPECT_TRUE(PrintableOutsideNodeNames(result.status().message())) << result.status();
  EXPECT_LT(result.status().message().size(), 4096u) << result.status();
}

RunGraphOptions OptionsFor(const Case& c, const std::string& graph,
                           const std::vector<std::pair<std::string, std::string>>& feeds) {
  RunGraphOptions options;
  options.graph = graph;
  options.init = c.init;
  options.targets = c.targets;
  options.feeds = feeds;
  options.fetches = c.fetches;
  if (options.init.empty() && options.targets.empty() && options.fetches.empty()) {
    // Fetch every node's first output that the graph has.
    absl::StatusOr<GraphDef> parsed = ReadGraphDefFile(kFixtures + c.dir + "/graph.pb");
    if (parsed.ok() && !parsed->node.empty()) options.fetches = {parsed->node.back().name + ":0"};
  }
  return options;
}

std::vector<std::pair<std::string, std::string>> FixtureFeeds(const Case& c) {
  std::vector<std::pair<std::string, std::string>> feeds;
  for (const auto& [name, file] : c.feeds) feeds.emplace_back(name, kFixtures + c.dir + "/" + file);
  return feeds;
}

TEST(RunGraphFuzzTest, MutatedGraphsEndWithTheirAnswerOrAnInputError) {
  const std::string dir = test::MakeTempDir("run_graph_fuzz");
  Rng rng(kSeed);
  Outcomes outcomes;
  int mutant = 0;
  for (const Case& c : Cases()) {
    absl::StatusOr<std::string> bytes =
        ReadRegularFile(kFixtures + c.dir + "/graph.pb", int64_t{1} << 30, "a GraphDef");
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    absl::StatusOr<GraphDef> graph = ParseBinaryGraphDef(*bytes, c.dir);
    ASSERT_TRUE(graph.ok()) << graph.status();
    for (int i = 0; i < kMutantsPerCase; ++i, ++mutant) {
      std::string path;
      std::string what;
      if (i % 2 == 0) {
        path = absl::StrCat(dir, "/m", mutant, ".pb");
        test::WriteFileAtomically(path, MutateBytes(*bytes, rng));
        what = c.dir + " bytes";
      } else {
        GraphDef mutated = *graph;
        for (int k = 0; k <= Pick(rng, 3); ++k) MutateGraph(&mutated, rng);
        path = absl::StrCat(dir, "/m", mutant, ".pbtxt");
        ASSERT_TRUE(WriteGraphDefFile(path, mutated).ok());
        what = c.dir + " graph";
      }
      ExpectBoundedEnd(OptionsFor(c, path, FixtureFeeds(c)), mutant, what, &outcomes);
    }
  }
  // The mutants reach every stage: some run to the end, some fail to parse,
  // some fail later.
  EXPECT_GT(outcomes[absl::StatusCode::kOk], 0);
  EXPECT_GT(outcomes[absl::StatusCode::kInvalidArgument], 0);
  EXPECT_GE(outcomes.size(), 3u);
}

TEST(RunGraphFuzzTest, MutatedFeedsEndWithTheirAnswerOrAnInputError) {
  const std::string dir = test::MakeTempDir("run_graph_fuzz_npy");
  Rng rng(kSeed + 1);
  Outcomes outcomes;
  int mutant = 0;
  for (const Case& c : Cases()) {
    if (c.feeds.empty()) continue;
    for (int i = 0; i < kMutantsPerCase; ++i, ++mutant) {
      std::vector<std::pair<std::string, std::string>> feeds = FixtureFeeds(c);
      auto& [name, file] = feeds[static_cast<size_t>(Pick(rng, feeds.size()))];
      absl::StatusOr<std::string> bytes = ReadRegularFile(file, int64_t{1} << 30, "a .npy");
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      std::string mutated = *bytes;
      // Header bytes (the first 128) are mutated as often as the data.
      if (i % 2 == 0 && mutated.size() > 128) {
        std::string header = MutateBytes(mutated.substr(0, 128), rng);
        mutated = header + mutated.substr(128);
      } else {
        mutated = MutateBytes(mutated, rng);
      }
      file = absl::StrCat(dir, "/f", mutant, ".npy");
      test::WriteFileAtomically(file, mutated);
      ExpectBoundedEnd(OptionsFor(c, kFixtures + c.dir + "/graph.pb", feeds), mutant,
                       c.dir + " feed " + name, &outcomes);
    }
  }
  EXPECT_GT(outcomes[absl::StatusCode::kOk], 0);
  EXPECT_GT(outcomes[absl::StatusCode::kInvalidArgument], 0);
}

}  // namespace
}  // namespace minitf::harness
