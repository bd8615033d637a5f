// The graphs TensorFlow writes, run by minitf with TensorFlow's numbers: each
// case under tests/fixtures/tf/ (written by tools/tf_fixtures/ with
// tensorflow-cpu) holds a GraphDef, its inputs and TensorFlow's outputs, and
// a manifest.json saying what to run (tests/fixtures/tf/README.md). Every
// case runs on the CPU and on SimGPU, from the binary file and, where there
// is one, the text file.
#include <cmath>
#include <cstring>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "runtime/graph_def_io.h"
#include "runtime/npy_io.h"
#include "session/session.h"

namespace minitf {
namespace {

const std::string kFixtures = std::string(MINITF_SOURCE_DIR) + "/tests/fixtures/tf/";

nlohmann::json ReadManifest(const std::string& dir) {
  std::ifstream in(dir + "manifest.json");
  EXPECT_TRUE(in.good()) << dir << "manifest.json";
  return nlohmann::json::parse(in);
}

Tensor ReadNpy(const std::string& path) {
  absl::StatusOr<Tensor> t = ReadNpyFile(path);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

// Element `i` of a float or double tensor as double.
double At(const Tensor& t, int64_t i) {
  return t.dtype() == DT_FLOAT ? t.data<float>()[i] : t.data<double>()[i];
}

// TensorFlow's value `expected` against minitf's `actual`: floats within
// atol + rtol * |expected|, other types equal.
void ExpectClose(const Tensor& expected, const Tensor& actual, double rtol, double atol,
                 const std::string& what) {
  ASSERT_EQ(DataTypeString(actual.dtype()), DataTypeString(expected.dtype())) << what;
  ASSERT_EQ(actual.shape().DebugString(), expected.shape().DebugString()) << what;
  if (expected.dtype() == DT_FLOAT || expected.dtype() == DT_DOUBLE) {
    int reported = 0;
    for (int64_t i = 0; i < expected.NumElements() && reported < 5; ++i) {
      const double e = At(expected, i);
      const double a = At(actual, i);
      if (!(std::abs(a - e) <= atol + rtol * std::abs(e))) {
        ADD_FAILURE() << what << "[" << i << "]: minitf " << a << ", TensorFlow " << e;
        ++reported;
      }
    }
  } else {
    EXPECT_EQ(std::string(static_cast<const char*>(actual.raw_data()), actual.TotalBytes()),
              std::string(static_cast<const char*>(expected.raw_data()), expected.TotalBytes()))
        << what << ": minitf " << actual.DebugString() << ", TensorFlow "
        << expected.DebugString();
  }
}

// Row `step` of a [steps, ...] tensor of step values.
Tensor Row(const Tensor& stacked, int64_t step) {
  TensorShape row_shape;
  for (int d = 1; d < stacked.dims(); ++d) row_shape.AddDim(stacked.dim_size(d));
  Tensor row(stacked.dtype(), row_shape);
  const size_t bytes = row.TotalBytes();
  std::memcpy(row.raw_data(), static_cast<const char*>(stacked.raw_data()) + step * bytes, bytes);
  return row;
}

struct FixtureRun {
  std::string name;
  std::string device;  // "CPU" or "GPU"
  std::string graph_file;
  // Graph optimization (the default) on, or every pass off.
  bool optimize = true;
};

void PrintTo(const FixtureRun& run, std::ostream* os) {
  *os << run.name << " on " << run.device << " from " << run.graph_file
      << (run.optimize ? "" : ", unoptimized");
}

class TensorFlowFixtureTest : public ::testing::TestWithParam<FixtureRun> {};

void RunFeedsAndCompare(Session* session, const std::string& dir, const nlohmann::json& feeds,
                        const nlohmann::json& fetches, double rtol, double atol,
                        const std::string& what) {
  std::vector<std::pair<std::string, Tensor>> inputs;
  for (const auto& [name, file] : feeds.items()) {
    inputs.emplace_back(name, ReadNpy(dir + file.get<std::string>()));
  }
  std::vector<std::string> names;
  std::vector<Tensor> expected;
  for (const auto& [name, file] : fetches.items()) {
    names.push_back(name);
    expected.push_back(ReadNpy(dir + file.get<std::string>()));
  }
  std::vector<Tensor> outputs;
  absl::Status s = session->Run(inputs, names, {}, &outputs);
  ASSERT_TRUE(s.ok()) << what << ": " << s;
  for (size_t i = 0; i < names.size(); ++i) {
    ExpectClose(expected[i], outputs[i], rtol, atol, what + " " + names[i]);
  }
}

TEST_P(TensorFlowFixtureTest, MatchesTensorFlow) {
  const FixtureRun& run = GetParam();
  const std::string dir = kFixtures + run.name + "/";
  const nlohmann::json manifest = ReadManifest(dir);
  const double rtol = manifest.value("rtol", 1e-5);
  const double atol = manifest.value("atol", 1e-6);

  absl::StatusOr<GraphDef> graph = ReadGraphDefFile(dir + run.graph_file);
  ASSERT_TRUE(graph.ok()) << graph.status();
  SessionOptions options;
  if (!run.optimize) options.config.graph_options = GraphOptions::Unoptimized();
  if (run.device == "CPU") {
    options.config.device_count["GPU"] = 0;
  } else {
    options.config.allow_soft_placement = true;
    options.config.gpu_options.platform = "SimGPU";
  }
  absl::StatusOr<std::unique_ptr<Session>> session = NewSession(options);
  ASSERT_TRUE(session.ok()) << session.status();
  absl::Status created = (*session)->Create(*graph);
  ASSERT_TRUE(created.ok()) << created;

  std::vector<Tensor> outputs;
  if (manifest.contains("init")) {
    absl::Status s = (*session)->Run({}, {}, {manifest["init"].get<std::string>()}, &outputs);
    ASSERT_TRUE(s.ok()) << "init: " << s;
  }
  if (manifest.contains("target")) {
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (const auto& [name, file] : manifest["feeds"].items()) {
      feeds.emplace_back(name, ReadNpy(dir + file.get<std::string>()));
    }
    std::vector<std::string> step_fetches;
    std::vector<Tensor> step_values;
    for (const auto& name : manifest.value("step_fetches", nlohmann::json::array())) {
      step_fetches.push_back(name.get<std::string>());
      step_values.push_back(
          ReadNpy(dir + manifest["step_values"][name.get<std::string>()].get<std::string>()));
    }
    const int steps = manifest.value("steps", 1);
    for (int step = 0; step < steps; ++step) {
      absl::Status s = (*session)->Run(feeds, step_fetches,
                                       {manifest["target"].get<std::string>()}, &outputs);
      ASSERT_TRUE(s.ok()) << "step " << step << ": " << s;
      for (size_t i = 0; i < step_fetches.size(); ++i) {
        ExpectClose(Row(step_values[i], step), outputs[i], rtol, atol,
                    absl::StrCat("step ", step, " ", step_fetches[i]));
      }
      if (HasFailure()) return;
    }
  }
  if (manifest.contains("fetches")) {
    RunFeedsAndCompare(session->get(), dir, manifest.value("feeds", nlohmann::json::object()),
                       manifest["fetches"], rtol, atol, "fetch");
  }
  if (manifest.contains("fetches2")) {
    RunFeedsAndCompare(session->get(), dir, manifest["feeds2"], manifest["fetches2"], rtol, atol,
                       "fetch (second feeds)");
  }
}

// The cases, each on both devices and from each graph file it has, and
// from the binary file with graph optimization off: the same answers either
// way.
std::vector<FixtureRun> AllRuns() {
  std::vector<FixtureRun> runs;
  for (const char* name : {"mlp_frozen", "cnn_frozen", "cond_v1", "while_loop_v1", "linear_gd",
                           "resnet_block_momentum", "transformer_adam", "resource_vars",
                           "random_ops", "reductions_accuracy", "losses_accuracy"}) {
    for (const char* device : {"CPU", "GPU"}) {
      runs.push_back({name, device, "graph.pb"});
      runs.push_back({name, device, "graph.pb", /*optimize=*/false});
      if (std::ifstream(kFixtures + name + "/graph.pbtxt").good()) {
        runs.push_back({name, device, "graph.pbtxt"});
      }
    }
  }
  return runs;
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, TensorFlowFixtureTest, ::testing::ValuesIn(AllRuns()),
    [](const ::testing::TestParamInfo<FixtureRun>& info) {
      return info.param.name + "_" + info.param.device + "_" +
             (info.param.graph_file == "graph.pb" ? "pb" : "pbtxt") +
             (info.param.optimize ? "" : "_unoptimized");
    });

}  // namespace
}  // namespace minitf
