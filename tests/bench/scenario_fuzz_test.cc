// A mutation fuzzer of scenario files, run as an ordinary test: mutants of
// the built-in scenarios (bench/scenarios/*.json) and of a CSV job list,
// made from a fixed seed, each parse or are refused with InvalidArgument
// (never a crash, never another code, never a long or unprintable
// message), and every job of a mutant that parses builds its model or
// fails with a Status.
//
// Structure mutations work on the parsed tree (drop, duplicate, rename or
// swap keys; replace a value with an extreme number, a number-like string,
// another type, a long or binary string, a deep nest; drop, duplicate or
// swap array elements); byte mutations on the text (flip, insert, delete,
// repeat, truncate).
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "bench/harness/experiment/experiment.h"
#include "bench/harness/jobs/job_model.h"
#include "bench/harness/scenario/scenario.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace minitf::harness {
namespace {

using Json = nlohmann::json;
using Rng = std::mt19937_64;

constexpr uint64_t kSeed = 20240615;
constexpr int kStructureMutantsPerSeed = 400;
constexpr int kByteMutantsPerSeed = 150;

// A mutant: a tree, and marks in it (strings no scenario holds, as values
// or keys) that the text written from the tree has replaced by raw text, so
// a mutant can hold what no JSON tree can: a key twice, bad UTF-8, a raw
// NUL, a nest too deep to build.
struct Mutant {
  Json doc;
  std::vector<std::pair<std::string, std::string>> marks;  // mark, raw text

  // A new mark for `raw`.
  std::string Mark(std::string raw) {
    std::string mark = absl::StrCat("\x01mark", marks.size(), "\x01");
    marks.emplace_back(mark, std::move(raw));
    return mark;
  }

  std::string Write() const {
    std::string text = doc.dump();
    for (const auto& [mark, raw] : marks) {
      // dump() writes the mark's control bytes as \u0001.
      const std::string written = Json(mark).dump();
      if (const size_t at = text.find(written); at != std::string::npos) {
        text.replace(at, written.size(), raw);
      }
    }
    return text;
  }
};

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

size_t Pick(Rng& rng, size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }

// Raw JSON texts a value may become: numbers, strings, and the rest.
struct Replacements {
  // At and past every limit a field has, the largest sizes the parser
  // accepts (65536 for batch_size, 1048576 for model_params) included.
  std::vector<std::string> numbers = {
      "0", "-1", "1", "2", "3", "4", "8", "100", "101", "0.5", "-0.0", "1e-308", "1e308",
      "-1e308", "1e7", "10000001", "65536", "65537", "1048576", "1048577", "1099511627776",
      "1099511627777",
      "2147483648", "9223372036854775807", "9223372036854775808", "18446744073709551615",
      "-9223372036854775808", "123456789012345678901234567890"};
  // Strings that look like numbers, sizes or names.
  std::vector<std::string> strings = {
      R"("NaN")", R"("inf")", R"("-Infinity")", R"("1e309")", R"("0x10")", R"("")", R"(" ")",
      R"("16GiB")", R"("0GiB")", R"("-1GiB")", R"("1e308GiB")", R"("9999999999TiB")",
      R"("1B")", R"("cnn")", R"("mlp")", R"("transformer")", R"("guarantee")", R"("antman")",
      R"("high")", R"("CUDA")", R"("memory=1KiB")", R"("mode=timing,count=0")",
      R"("../../etc/passwd")", R"("a\u0000b")", R"("\u0000")", R"("caf\u00e9")", R"("CON")",
      R"(".")", R"("-")"};
  // Other types; text that is not JSON; JSON no scenario needs.
  std::vector<std::string> others = {
      "null", "true", "false", "[]", "{}", "[1, 2]", R"({"a": 1})", R"([{"name": "x"}])",
      "\"\xff\xfe\"", "\"\xc3\x28\"", std::string("\"a\0b\"", 5), "NaN", "Infinity",
      "01", "1.", "-", "\"\\ud800\""};

  Replacements() {
    strings.push_back(absl::StrCat("\"", std::string(64, 'n'), "\""));
    strings.push_back(absl::StrCat("\"", std::string(65, 'n'), "\""));
    strings.push_back(absl::StrCat("\"", std::string(100000, 'a'), "\""));
    others.push_back(std::string(30, '[') + std::string(30, ']'));
    others.push_back(std::string(10000, '[') + std::string(10000, ']'));
    std::string objects;
    for (int i = 0; i < 2000; ++i) objects += R"({"a": )";
    objects += "1";
    for (int i = 0; i < 2000; ++i) objects += "}";
    others.push_back(objects);
  }

  // Half the time one of the value's own kind (so more mutants get past
  // the parser to the model builder), else any.
  const std::string& For(Rng& rng, const Json& value) const {
    const std::vector<std::string>* kind = nullptr;
    if (Pick(rng, 2) == 0 && value.is_number()) kind = &numbers;
    if (Pick(rng, 2) == 0 && value.is_string()) kind = &strings;
    if (kind == nullptr) {
      const size_t i = Pick(rng, numbers.size() + strings.size() + others.size());
      if (i < numbers.size()) return numbers[i];
      if (i < numbers.size() + strings.size()) return strings[i - numbers.size()];
      return others[i - numbers.size() - strings.size()];
    }
    return (*kind)[Pick(rng, kind->size())];
  }
};

// Every value of the tree, the root first.
void CollectNodes(Json* node, std::vector<Json*>* out) {
  out->push_back(node);
  if (node->is_object()) {
    for (auto& [key, value] : node->items()) CollectNodes(&value, out);
  } else if (node->is_array()) {
    for (Json& value : *node) CollectNodes(&value, out);
  }
}

// A key like `key`, as a hand might mistype it.
std::string Typo(Rng& rng, std::string key) {
  switch (Pick(rng, 5)) {
    case 0:
      if (!key.empty()) key.erase(Pick(rng, key.size()), 1);
      return key;
    case 1:
      return key + "s";
    case 2:
      if (!key.empty()) key[0] = static_cast<char>(std::toupper(key[0]));
      return key;
    case 3:
      return absl::StrReplaceAll(key, {{"_", ""}});
    default:
      return std::string(1000, 'k');
  }
}

// One structure mutation of the mutant's tree.
void MutateStructure(Rng& rng, const Replacements& values, Mutant* mutant) {
  std::vector<Json*> nodes;
  CollectNodes(&mutant->doc, &nodes);
  Json* node = nodes[Pick(rng, nodes.size())];
  if (node->is_object() && !node->empty() && Pick(rng, 2) == 0) {
    std::vector<std::string> keys;
    for (auto& [key, value] : node->items()) keys.push_back(key);
    const std::string key = keys[Pick(rng, keys.size())];
    switch (Pick(rng, 4)) {
      case 0:  // drop
        node->erase(key);
        return;
      case 1: {  // rename
        Json value = (*node)[key];
        node->erase(key);
        (*node)[Typo(rng, key)] = std::move(value);
        return;
      }
      case 2: {  // give twice, the second time with another value
        const std::string mark = mutant->Mark(Json(key).dump());
        (*node)[mark] = mutant->Mark(values.For(rng, (*node)[key]));
        return;
      }
      default: {  // swap with another key's value
        const std::string other = keys[Pick(rng, keys.size())];
        std::swap((*node)[key], (*node)[other]);
        return;
      }
    }
  }
  if (node->is_array() && !node->empty() && Pick(rng, 2) == 0) {
    const size_t i = Pick(rng, node->size());
    switch (Pick(rng, 4)) {
      case 0:
        node->erase(i);
        return;
      case 1:
        node->push_back((*node)[i]);
        return;
      case 2:
        std::swap((*node)[i], (*node)[Pick(rng, node->size())]);
        return;
      default:
        *node = Json::array();
        return;
    }
  }
  if (Pick(rng, 4) == 0) {
    *node = Json(*nodes[Pick(rng, nodes.size())]);  // another part of the file
    return;
  }
  *node = mutant->Mark(values.For(rng, *node));
}

std::string MutateBytes(Rng& rng, std::string text) {
  static constexpr char kBytes[] = "\"{}[],:\\0-e.\0\xff\n ";
  static const std::string kSpecial(kBytes, sizeof(kBytes) - 1);
  const int count = 1 + static_cast<int>(Pick(rng, 4));
  for (int n = 0; n < count && !text.empty(); ++n) {
    const size_t at = Pick(rng, text.size());
    switch (Pick(rng, 6)) {
      case 0:
        text[at] = static_cast<char>(text[at] ^ (1 << Pick(rng, 8)));
        break;
      case 1:
        text.insert(at, 1, kSpecial[Pick(rng, kSpecial.size())]);
        break;
      case 2:
        text.erase(at, 1 + Pick(rng, 8));
        break;
      case 3:
        text[at] = kSpecial[Pick(rng, kSpecial.size())];
        break;
      case 4:
        text.insert(at, text.substr(Pick(rng, text.size()), 1 + Pick(rng, 64)));
        break;
      default:
        text.resize(at);
        break;
    }
  }
  return text;
}

bool IsPrintable(absl::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

std::string Shown(absl::string_view text) {
  std::string shown;
  for (char c : text.substr(0, 300)) {
    shown += (c >= 0x20 && c < 0x7f) ? std::string(1, c)
                                     : absl::StrCat("\\x", absl::Hex(static_cast<uint8_t>(c)));
  }
  return shown;
}

struct Counts {
  int ok = 0;
  int invalid = 0;
  int jobs_built = 0;
  int jobs_refused = 0;
};

// Parses one mutant and builds its jobs' models, failing the test on a
// result that is neither OK nor InvalidArgument.
void Check(const std::string& mutant, bool csv, Counts* counts) {
  SCOPED_TRACE(Shown(mutant));
  absl::StatusOr<Scenario> s =
      csv ? ParseScenarioCsv(mutant, "mutant.csv") : ParseScenarioJson(mutant, "mutant.json");
  if (!s.ok()) {
    ++counts->invalid;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << s.status();
    EXPECT_LT(s.status().message().size(), 1000u) << s.status();
    EXPECT_TRUE(IsPrintable(s.status().message())) << Shown(s.status().message());
    return;
  }
  ++counts->ok;
  for (const JobSpec& job : s->jobs) {
    absl::StatusOr<JobModel> model = BuildJobModel(job);
    ++(model.ok() ? counts->jobs_built : counts->jobs_refused);
  }
}

std::vector<std::string> Seeds() {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(MINITF_SOURCE_DIR) + "/bench/scenarios")) {
    if (entry.path().extension() == ".json") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());  // the directory's order is not fixed
  std::vector<std::string> seeds;
  for (const auto& path : paths) seeds.push_back(ReadFile(path));
  return seeds;
}

TEST(ScenarioFuzzTest, MutantsParseOrAreInvalidArgumentAndTheirJobsBuildOrFail) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::string> seeds = Seeds();
  ASSERT_GE(seeds.size(), 4u);
  const Replacements values;
  Rng rng(kSeed);
  Counts structure, bytes;
  for (const std::string& seed : seeds) {
    ASSERT_TRUE(ParseScenarioJson(seed, "seed.json").ok());
    for (int i = 0; i < kStructureMutantsPerSeed; ++i) {
      Mutant mutant{.doc = Json::parse(seed), .marks = {}};
      const int mutations = 1 + static_cast<int>(Pick(rng, 3));
      for (int m = 0; m < mutations; ++m) MutateStructure(rng, values, &mutant);
      Check(mutant.Write(), /*csv=*/false, &structure);
      if (testing::Test::HasFailure()) return;
    }
    for (int i = 0; i < kByteMutantsPerSeed; ++i) {
      Check(MutateBytes(rng, seed), /*csv=*/false, &bytes);
      if (testing::Test::HasFailure()) return;
    }
  }
  const std::string csv =
      "submit_time,model_name,batch_size,iterations,gpu_requests,priority\n"
      "0,cnn,64,200,1,0\n"
      "5.5,mlp,128,1000,1,1\n"
      "12,transformer,32,50,1,2\n";
  ASSERT_TRUE(ParseScenarioCsv(csv, "seed.csv").ok());
  for (int i = 0; i < kByteMutantsPerSeed; ++i) {
    Check(MutateBytes(rng, csv), /*csv=*/true, &bytes);
    if (testing::Test::HasFailure()) return;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "structure mutants: %d parsed (%d jobs built, %d refused by the model builder), %d "
      "refused\nbyte mutants: %d parsed (%d jobs built, %d refused), %d refused\n%.1f s\n",
      structure.ok, structure.jobs_built, structure.jobs_refused, structure.invalid, bytes.ok,
      bytes.jobs_built, bytes.jobs_refused, bytes.invalid, seconds);
  // Enough of each kind got through the parser to reach the model builder.
  EXPECT_GE(structure.ok, 30);
  EXPECT_GE(bytes.ok, 10);
}

// Mutants that parse and whose jobs all build are run, briefly: whatever
// their sizes, times and SimGPU options, a run ends (its set-up and steps
// are bounded by the experiment's end) with a result or an error Status,
// and never crashes.
TEST(ScenarioFuzzTest, MutantsThatBuildRunAndEnd) {
  constexpr int kRuns = 20;
  const std::vector<std::string> seeds = Seeds();
  const Replacements values;
  Rng rng(kSeed + 1);
  int runs = 0, completed = 0;
  for (int i = 0; runs < kRuns && i < 4000; ++i) {
    Mutant mutant{.doc = Json::parse(seeds[Pick(rng, seeds.size())]), .marks = {}};
    MutateStructure(rng, values, &mutant);
    const std::string text = mutant.Write();
    absl::StatusOr<Scenario> s = ParseScenarioJson(text, "mutant.json");
    if (!s.ok()) continue;
    const bool builds = std::all_of(s->jobs.begin(), s->jobs.end(), [](const JobSpec& job) {
      return BuildJobModel(job).ok();
    });
    if (!builds) continue;
    SCOPED_TRACE(Shown(text));
    ++runs;
    ExperimentOptions options;
    options.out_dir = (std::filesystem::temp_directory_path() /
                       absl::StrCat("scenario_fuzz_run_", getpid(), "_", runs))
                          .string();
    options.seconds = 0.3;
    options.max_trace_spans = 0;
    absl::StatusOr<ExperimentResult> result = RunExperiment(*s, options);
    if (result.ok()) {
      ++completed;
      EXPECT_EQ(result->jobs.size(), s->jobs.size());
    }
    std::filesystem::remove_all(options.out_dir);
  }
  std::printf("ran %d mutants: %d completed, %d ended with an error\n", runs, completed,
              runs - completed);
  EXPECT_EQ(runs, kRuns);
}

// The largest model sizes and batches the parser accepts would make a
// synthetic batch of terabytes: BuildJobModel refuses them with a Status.
TEST(ScenarioFuzzTest, LargestAcceptedSizesAreRefusedWithAStatus) {
  const std::vector<std::string> jobs = {
      R"({"name": "a", "model": "cnn", "batch_size": 1, "model_params": {"image_size": 1048576}})",
      R"({"name": "a", "model": "mlp", "batch_size": 65536,
          "model_params": {"features": 1048576}})",
      R"({"name": "a", "model": "transformer", "batch_size": 65536,
          "model_params": {"seq_len": 1048576}})",
  };
  for (const std::string& job : jobs) {
    absl::StatusOr<Scenario> s =
        ParseScenarioJson(absl::StrCat(R"({"jobs": [)", job, "]}"), "big.json");
    ASSERT_TRUE(s.ok()) << s.status();
    absl::StatusOr<JobModel> model = BuildJobModel(s->jobs[0]);
    EXPECT_FALSE(model.ok()) << job;
  }
}

}  // namespace
}  // namespace minitf::harness
