// minitf's gradients of graphs TensorFlow wrote, against TensorFlow's own
// (tf.gradients) of the same graphs: tests/fixtures/tf/gradients_tf (42 op
// types) and gradients_cond_tf (a v1 cond, each branch taken), whose files
// hold the forward graph only. The graph with minitf's gradients also goes
// through the GraphDef writer and back.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "ops/cc/gradients.h"
#include "runtime/graph_def_io.h"
#include "runtime/npy_io.h"
#include "session/session.h"

namespace minitf {
namespace {

const std::string kFixtures = std::string(MINITF_SOURCE_DIR) + "/tests/fixtures/tf/";

Tensor ReadNpy(const std::string& path) {
  absl::StatusOr<Tensor> t = ReadNpyFile(path);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

// "x:0" as an Output of the imported graph (the placeholders are float).
Output FloatTensor(const std::string& name) {
  return Output(name.substr(0, name.find(':')), 0, DT_FLOAT);
}

struct GradientRun {
  std::string fixture;
  std::string suffix;  // "" for feeds/gradients, "2" for feeds2/gradients2
  std::string device;  // "CPU" or "GPU"
};

void PrintTo(const GradientRun& run, std::ostream* os) {
  *os << run.fixture << " feeds" << run.suffix << " on " << run.device;
}

class TfGradientsFixtureTest : public ::testing::TestWithParam<GradientRun> {};

TEST_P(TfGradientsFixtureTest, MatchTensorFlowsGradients) {
  const GradientRun& run = GetParam();
  const std::string dir = kFixtures + run.fixture + "/";
  std::ifstream in(dir + "manifest.json");
  ASSERT_TRUE(in.good());
  const nlohmann::json manifest = nlohmann::json::parse(in);
  absl::StatusOr<GraphDef> forward = ReadGraphDefFile(dir + "graph.pb");
  ASSERT_TRUE(forward.ok()) << forward.status();

  // TensorFlow's nodes, then minitf's gradients of its loss.
  Scope root = Scope::NewRootScope();
  for (const NodeDef& node : forward->node) root.AddNode(node);
  std::vector<Output> xs;
  std::vector<std::string> x_names;
  const nlohmann::json& expected_grads = manifest["gradients" + run.suffix];
  for (const auto& [name, file] : expected_grads.items()) {
    xs.push_back(FloatTensor(name));
    x_names.push_back(name);
  }
  std::vector<Output> grads;
  ASSERT_TRUE(AddSymbolicGradients(root, {FloatTensor("loss:0")}, xs, &grads).ok())
      << root.status();
  GraphDef with_gradients;
  ASSERT_TRUE(root.ToGraphDef(&with_gradients).ok());

  // Through the writer and the reader, as a user would ship it.
  // A file of this case's own: ctest runs the cases as parallel processes.
  const std::string path = ::testing::TempDir() + "/" + run.fixture + "_feeds" + run.suffix +
                           "_" + run.device + "_" + std::to_string(getpid()) +
                           "_with_gradients.pb";
  ASSERT_TRUE(WriteGraphDefFile(path, with_gradients).ok());
  absl::StatusOr<GraphDef> reread = ReadGraphDefFile(path);
  ASSERT_TRUE(reread.ok()) << reread.status();
  std::remove(path.c_str());
  // For tools/tf_fixtures/check_minitf_gradients.py, which runs the file in
  // TensorFlow: the graph and its gradient tensors' names.
  const char* graph_out = std::getenv("MINITF_GRADIENTS_GRAPH_OUT");
  if (graph_out != nullptr && run.fixture == "gradients_tf") {
    ASSERT_TRUE(WriteGraphDefFile(graph_out, with_gradients).ok());
    nlohmann::json names;
    for (size_t i = 0; i < xs.size(); ++i) names[x_names[i]] = grads[i].name();
    std::ofstream(std::string(graph_out) + ".json") << names.dump(2) << "\n";
  }

  SessionOptions options;
  if (run.device == "CPU") options.config.device_count = {{"GPU", 0}};
  options.config.intra_op_parallelism_threads = 1;
  auto session = NewSession(options);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(*reread).ok());
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [name, file] : manifest["feeds" + run.suffix].items()) {
    feeds.emplace_back(name, ReadNpy(dir + file.get<std::string>()));
  }
  std::vector<std::string> fetches;
  for (const Output& g : grads) {
    ASSERT_TRUE(g.valid());
    fetches.push_back(g.name());
  }
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(feeds, fetches, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  // 1e-5 relative; entries near zero (sums of terms that cancel) within 1e-6.
  constexpr double kRtol = 1e-5, kAtol = 1e-6;
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor expected = ReadNpy(dir + expected_grads[x_names[i]].get<std::string>());
    ASSERT_EQ(out[i].shape(), expected.shape()) << x_names[i];
    int reported = 0;
    for (int64_t j = 0; j < expected.NumElements() && reported < 5; ++j) {
      const double e = expected.data<float>()[j];
      const double a = out[i].data<float>()[j];
      if (!(std::abs(a - e) <= kAtol + kRtol * std::abs(e))) {
        ADD_FAILURE() << "d loss / d " << x_names[i] << "[" << j << "]: minitf " << a
                      << ", TensorFlow " << e;
        ++reported;
      }
    }
  }
}

std::vector<GradientRun> AllRuns() {
  std::vector<GradientRun> runs;
  for (const char* device : {"CPU", "GPU"}) {
    runs.push_back({"gradients_tf", "", device});
    runs.push_back({"gradients_cond_tf", "", device});
    runs.push_back({"gradients_cond_tf", "2", device});
  }
  return runs;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TfGradientsFixtureTest, ::testing::ValuesIn(AllRuns()),
                         [](const ::testing::TestParamInfo<GradientRun>& info) {
                           return info.param.fixture + "_feeds" + info.param.suffix + "_" +
                                  info.param.device;
                         });

}  // namespace
}  // namespace minitf
