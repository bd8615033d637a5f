// The layer order, checked: every `#include "..."` of the tree must point to
// its own layer or to a layer below it (docs/ARCHITECTURE.md):
//
//   platform <- {stream, allocator} <- runtime <- device <- ops <- optimizer <- session
//   <- bench <- cli <- python
//
// and, inside bench/harness/, scenario/ <- jobs/ <- experiment/ <- report/;
// with stream/ and
// allocator/ side by side (neither includes the other), and
// inside the upper layers: ops/defs, ops/kernels and ops/cc share only
// ops/util (op definitions never include kernel headers), and the session
// core never includes AntMan's control plane (session/antman/), which plugs
// in through session_run_action.h. Only platform/ talks to spdlog.
//
// The checker reads the sources under MINITF_SOURCE_DIR; a planted upward
// include in a scratch tree shows that it catches one.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace minitf {
namespace {

namespace fs = std::filesystem;

// Layer -> the layers it may include besides itself. A file belongs to the
// layer with the longest matching folder prefix.
const std::map<std::string, std::set<std::string>>& Allowed() {
  static const auto* const allowed = [] {
    auto* m = new std::map<std::string, std::set<std::string>>;
    auto add = [m](const std::string& layer, std::set<std::string> below,
                   const std::vector<std::string>& also_all_of) {
      for (const std::string& lower : also_all_of) {
        below.insert(lower);
        below.insert((*m)[lower].begin(), (*m)[lower].end());
      }
      (*m)[layer] = std::move(below);
    };
    add("platform", {}, {});
    add("stream", {}, {"platform"});
    add("allocator", {}, {"platform"});
    add("runtime", {}, {"stream", "allocator"});
    add("device", {}, {"runtime"});
    add("ops/util", {}, {"device"});
    add("ops/defs", {}, {"ops/util"});
    add("ops/kernels", {}, {"ops/util"});
    add("ops/cc", {}, {"ops/util"});
    add("ops", {}, {"ops/defs", "ops/kernels", "ops/cc"});
    add("optimizer", {}, {"ops"});
    add("session", {}, {"optimizer"});
    add("session/antman", {}, {"session"});
    add("bench/models", {}, {"session/antman"});
    add("bench/harness/scenario", {}, {"bench/models"});
    add("bench/harness/jobs", {}, {"bench/harness/scenario"});
    add("bench/harness/experiment", {}, {"bench/harness/jobs"});
    add("bench/harness/report", {}, {"bench/harness/experiment"});
    add("bench", {}, {"bench/harness/report"});
    add("cli", {}, {"bench"});
    add("examples", {}, {"bench"});
    add("python", {}, {"cli"});
    return m;
  }();
  return *allowed;
}

// The layer of a path relative to the root ("ops/kernels/cuda/x.cc" ->
// "ops/kernels"), or "" when it is in none.
std::string LayerOf(const std::string& path) {
  std::string best;
  for (const auto& [layer, below] : Allowed()) {
    if (path.rfind(layer + "/", 0) == 0 && layer.size() > best.size()) best = layer;
  }
  return best;
}

struct Violation {
  std::string file;
  int line;
  std::string message;
};

std::string Describe(const Violation& v) {
  return v.file + ":" + std::to_string(v.line) + ": " + v.message;
}

bool IsSource(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".h" || ext == ".cc" || ext == ".cu" || ext == ".cuh";
}

// Every upward or sideways include under `root`, and every include of
// spdlog outside platform/.
std::vector<Violation> CheckIncludes(const fs::path& root) {
  std::vector<Violation> violations;
  std::vector<std::string> files;
  for (const char* top : {"platform", "stream", "allocator", "runtime", "device", "ops",
                                 "optimizer", "session", "bench", "cli", "examples", "python"}) {
    if (!fs::exists(root / top)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      if (entry.is_regular_file() && IsSource(entry.path())) {
        files.push_back(fs::relative(entry.path(), root).generic_string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) {
    const std::string layer = LayerOf(file);
    const std::set<std::string>& allowed = Allowed().at(layer);
    std::ifstream in(root / file);
    std::string text;
    int line_number = 0;
    while (std::getline(in, text)) {
      ++line_number;
      const std::string kInclude = "#include \"";
      if (text.rfind(kInclude, 0) != 0) continue;
      const size_t end = text.find('"', kInclude.size());
      if (end == std::string::npos) continue;
      const std::string target = text.substr(kInclude.size(), end - kInclude.size());
      if (target.rfind("spdlog/", 0) == 0 && layer != "platform") {
        violations.push_back({file, line_number,
                              "includes \"" + target + "\": only platform/logging talks to "
                              "spdlog; use LOG/VLOG from platform/logging.h"});
        continue;
      }
      if (target.rfind("tests/", 0) == 0) {
        violations.push_back({file, line_number,
                              "includes \"" + target + "\": code outside tests/ never "
                              "includes test code"});
        continue;
      }
      const std::string target_layer = LayerOf(target);
      if (target_layer.empty()) continue;  // A library's header.
      if (target_layer == layer || allowed.count(target_layer) > 0) continue;
      violations.push_back(
          {file, line_number,
           "includes \"" + target + "\" (layer " + target_layer + ") from layer " + layer +
               ", against the order platform <- {stream, allocator} <- runtime <- device <- "
               "ops <- optimizer <- session <- bench <- cli <- python"});
    }
  }
  return violations;
}

TEST(IncludeLayersTest, EveryIncludeOfTheTreeFollowsTheLayerOrder) {
  const std::vector<Violation> violations = CheckIncludes(MINITF_SOURCE_DIR);
  for (const Violation& v : violations) ADD_FAILURE() << Describe(v);
  EXPECT_TRUE(violations.empty());
}

TEST(IncludeLayersTest, TheTreeHasEveryLayer) {
  // A check of an empty tree would pass whatever the includes: make sure the
  // source root is the real one.
  for (const auto& [layer, below] : Allowed()) {
    EXPECT_TRUE(fs::is_directory(fs::path(MINITF_SOURCE_DIR) / layer)) << layer;
  }
}

// A scratch tree under the test's temporary directory, removed at the end.
class ScratchTree {
 public:
  ScratchTree() {
    root_ = fs::path(::testing::TempDir()) /
            ("include_layers_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
  }
  ~ScratchTree() { fs::remove_all(root_); }
  void Write(const std::string& path, const std::string& text) {
    fs::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << text;
  }
  const fs::path& root() const { return root_; }

 private:
  fs::path root_;
};

TEST(IncludeLayersTest, APlantedUpwardIncludeIsReportedWithItsFileAndLine) {
  ScratchTree tree;
  tree.Write("runtime/tensor.h", "#include \"platform/mutex.h\"\n");
  tree.Write("platform/mutex.h", "#include <mutex>\n");
  tree.Write("platform/env.h",
             "// the bottom layer\n#include <string>\n#include \"runtime/tensor.h\"\n");
  const std::vector<Violation> violations = CheckIncludes(tree.root());
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].file, "platform/env.h");
  EXPECT_EQ(violations[0].line, 3);
  EXPECT_NE(violations[0].message.find("\"runtime/tensor.h\" (layer runtime) from layer platform"),
            std::string::npos)
      << violations[0].message;
}

// The command line sits above the harness: cli/ may include bench/, never
// the other way round.
TEST(IncludeLayersTest, TheHarnessNeverIncludesTheCommandLine) {
  ScratchTree tree;
  tree.Write("cli/run_command.cc", "#include \"bench/harness/run_graph.h\"\n");
  tree.Write("bench/harness/jobs/run_graph.h", "#include \"cli/interrupt.h\"\n");
  tree.Write("cli/interrupt.h", "#include <csignal>\n");
  const std::vector<Violation> violations = CheckIncludes(tree.root());
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].file, "bench/harness/jobs/run_graph.h");
  EXPECT_NE(violations[0].message.find("(layer cli) from layer bench"), std::string::npos)
      << violations[0].message;
}

// The Python binding is the top layer: it may include the session, which
// never includes it.
TEST(IncludeLayersTest, NothingIncludesThePythonBinding) {
  ScratchTree tree;
  tree.Write("python/src/session_binding.cc", "#include \"session/session.h\"\n");
  tree.Write("session/session.h", "#include \"python/src/status_error.h\"\n");
  tree.Write("python/src/status_error.h", "#include <stdexcept>\n");
  const std::vector<Violation> violations = CheckIncludes(tree.root());
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].file, "session/session.h");
  EXPECT_NE(violations[0].message.find("(layer python) from layer session"), std::string::npos)
      << violations[0].message;
}

// The harness's rooms in order: a job never includes the experiment that
// runs it, nor the scenario parser the job that a scenario names.
TEST(IncludeLayersTest, TheHarnessRoomsIncludeOnlyTheRoomsBeforeThem) {
  ScratchTree tree;
  tree.Write("bench/harness/jobs/job_process.cc",
             "#include \"bench/harness/scenario/scenario.h\"\n"
             "#include \"bench/harness/report/report.h\"\n");
  tree.Write("bench/harness/scenario/scenario.h", "#include \"bench/harness/jobs/graph_job.h\"\n");
  tree.Write("bench/harness/experiment/experiment.cc",
             "#include \"bench/harness/jobs/job_process.h\"\n"
             "#include \"session/antman/coordinator.h\"\n");
  const std::vector<Violation> violations = CheckIncludes(tree.root());
  ASSERT_EQ(violations.size(), 2u);
  EXPECT_EQ(violations[0].file, "bench/harness/jobs/job_process.cc");
  EXPECT_EQ(violations[0].line, 2);
  EXPECT_NE(violations[0].message.find("(layer bench/harness/report) from layer bench/harness/jobs"),
            std::string::npos)
      << violations[0].message;
  EXPECT_EQ(violations[1].file, "bench/harness/scenario/scenario.h");
}

TEST(IncludeLayersTest, StreamAndAllocatorNeverIncludeEachOther) {
  ScratchTree tree;
  tree.Write("stream/stream.h", "#include \"allocator/allocator.h\"\n");
  tree.Write("allocator/allocator.h", "#include \"stream/stream.h\"\n");
  const std::vector<Violation> violations = CheckIncludes(tree.root());
  ASSERT_EQ(violations.size(), 2u);
  EXPECT_EQ(violations[0].file, "allocator/allocator.h");
  EXPECT_EQ(violations[1].file, "stream/stream.h");
}

TEST(IncludeLayersTest, OpDefinitionsAndTheSessionCoreStayApartFromWhatIsAboveThem) {
  ScratchTree tree;
  tree.Write("ops/defs/nn_ops.cc",
             "#include \"ops/util/window_attrs.h\"\n#include \"ops/kernels/conv_ops.h\"\n");
  tree.Write("session/direct_session.cc",
             "#include \"session/session_run_action.h\"\n"
             "#include \"session/antman/gpu_statistics.h\"\n");
  tree.Write("session/antman/gpu_statistics.cc", "#include \"session/session_run_action.h\"\n");
  const std::vector<Violation> violations = CheckIncludes(tree.root());
  ASSERT_EQ(violations.size(), 2u);
  EXPECT_EQ(Describe(violations[0]).rfind("ops/defs/nn_ops.cc:2: ", 0), 0u)
      << Describe(violations[0]);
  EXPECT_EQ(Describe(violations[1]).rfind("session/direct_session.cc:2: ", 0), 0u)
      << Describe(violations[1]);
}

TEST(IncludeLayersTest, OnlyThePlatformLayerIncludesSpdlog) {
  ScratchTree tree;
  tree.Write("platform/logging.h", "#include \"spdlog/spdlog.h\"\n");
  tree.Write("allocator/bfc_allocator.cc", "#include \"spdlog/spdlog.h\"\n");
  const std::vector<Violation> violations = CheckIncludes(tree.root());
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].file, "allocator/bfc_allocator.cc");
}

}  // namespace
}  // namespace minitf
