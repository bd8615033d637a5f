#include "session/antman/gpu_config.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minitf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kFile[] = "/tmp/job/gpu.json";

GPUConfig Config(std::map<std::string, int64_t> max_device_mem,
                 std::optional<int> perf_control = std::nullopt) {
  GPUConfig config;
  config.max_device_mem = std::move(max_device_mem);
  config.perf_control = perf_control;
  return config;
}

// ---- Accepted inputs ------------------------------------------------------

struct AcceptCase {
  std::string name;
  std::string content;
  GPUConfig expected;
};

std::vector<AcceptCase> AcceptCases() {
  constexpr int64_t kGiB = int64_t{1} << 30;
  return {
      {"EmptyObjectChangesNothing", "{}", {}},
      {"EmptyGPUConfigInfo", R"({"gpuConfigInfo": {}})", {}},
      {"PerfControlOnly", R"({"perfControl": 50})", Config({}, 50)},
      {"PerfControlZeroSuspends", R"({"perfControl": 0})", Config({}, 0)},
      {"PerfControlHundredIsUnrestricted", R"({"perfControl": 100})", Config({}, 100)},
      {"FormatExample",
       R"({"gpuConfigInfo": {"0000:50:00.0": {"maxDeviceMem": 8589934592},
                             "GPU:1": {"maxDeviceMem": 4294967296}},
           "perfControl": 50})",
       Config({{"0000:50:00.0", 8 * kGiB}, {"GPU:1", 4 * kGiB}}, 50)},
      {"BusIdIsLowerCased", R"({"gpuConfigInfo": {"0000:5A:00.0": {"maxDeviceMem": 1}}})",
       Config({{"0000:5a:00.0", 1}})},
      {"DeviceNameFormsAreNormalised",
       R"({"gpuConfigInfo": {"/device:GPU:2": {"maxDeviceMem": 2},
             "/job:localhost/replica:0/task:0/device:GPU:10": {"maxDeviceMem": 10}}})",
       Config({{"GPU:2", 2}, {"GPU:10", 10}})},
      {"LargestLimitIsInt64Max",
       R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 9223372036854775807}}})",
       Config({{"GPU:0", std::numeric_limits<int64_t>::max()}})},
      {"DeviceEntryWithoutLimitChangesNothing", R"({"gpuConfigInfo": {"GPU:0": {}}})", {}},
      {"SurroundingWhitespace", " \n\t{\"perfControl\": 7}\r\n ", Config({}, 7)},
      {"Utf8ByteOrderMarkIsSkipped", "\xEF\xBB\xBF{\"perfControl\": 9}", Config({}, 9)},
      {"UnknownKeysAreIgnored",
       R"({"version": [1, {"x": null}], "gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 5,
             "maxComputeShare": "half"}}})",
       Config({{"GPU:0", 5}})},
  };
}

class GPUConfigAcceptTest : public ::testing::TestWithParam<AcceptCase> {};

TEST_P(GPUConfigAcceptTest, ParsesToExpectedConfig) {
  absl::StatusOr<GPUConfig> config = ParseGPUConfig(GetParam().content, kFile);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(*config, GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Accepted, GPUConfigAcceptTest, ::testing::ValuesIn(AcceptCases()),
                         [](const auto& info) { return info.param.name; });

// ---- Rejected inputs ------------------------------------------------------

struct RejectCase {
  std::string name;
  std::string content;
  // Text the message must contain besides the file name: the field at fault.
  std::string message_part;
};

std::vector<RejectCase> RejectCases() {
  const std::string kMem = R"(gpuConfigInfo."GPU:0".maxDeviceMem must be a positive integer)";
  auto mem = [](const std::string& value) {
    return R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": )" + value + "}}}";
  };
  return {
      {"Empty", "", "the file is empty"},
      {"WhitespaceOnly", " \n\t ", "the file is empty"},
      {"HalfWritten", R"({"gpuConfigInfo": {"GPU:0": {"maxDev)", "not valid JSON"},
      {"CutAfterColon", R"({"perfControl":)", "not valid JSON"},
      {"TrailingData", R"({"perfControl": 5} x)", "not valid JSON"},
      {"TwoObjects", R"({} {})", "not valid JSON"},
      {"Comment", "{} // done", "not valid JSON"},
      {"TrailingComma", R"({"perfControl": 5,})", "not valid JSON"},
      {"InvalidUtf8", "{\"\xff\": 1}", "not valid JSON"},
      {"NumberOverflow", R"({"perfControl": 1e999})", "not valid JSON"},
      {"NulByteThenGarbage", std::string("{}\0junk", 7),
       "not valid JSON: a NUL byte (byte offset 2)"},
      {"TopLevelArray", "[]", "must hold a JSON object, got an array"},
      {"TopLevelNumber", "42", "must hold a JSON object, got 42"},
      {"TopLevelString", R"("{}")", "must hold a JSON object"},
      {"TopLevelNull", "null", "must hold a JSON object, got null"},
      {"DuplicateTopLevelKey", R"({"perfControl": 5, "perfControl": 6})",
       "perfControl is given twice"},
      {"DuplicateSettingKey",
       R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 1, "maxDeviceMem": 2}}})",
       R"(gpuConfigInfo."GPU:0".maxDeviceMem is given twice)"},
      {"DuplicateKeyInsideUnknownArray", R"({"version": [0, {"a": 1, "a": 1}]})",
       "version[1].a is given twice"},
      {"GPUConfigInfoArray", R"({"gpuConfigInfo": []})",
       "gpuConfigInfo must be an object mapping device keys to settings, got an array"},
      {"GPUConfigInfoNull", R"({"gpuConfigInfo": null})", "gpuConfigInfo must be an object"},
      {"DeviceEntryNumber", R"({"gpuConfigInfo": {"GPU:0": 5}})",
       R"(gpuConfigInfo."GPU:0" must be an object of device settings, got 5)"},
      {"DeviceEntryString", R"({"gpuConfigInfo": {"GPU:0": "8GiB"}})",
       R"(gpuConfigInfo."GPU:0" must be an object of device settings, got "8GiB")"},
      {"DeviceKeyNotANumber", R"({"gpuConfigInfo": {"GPU:x": {}}})",
       R"(gpuConfigInfo."GPU:x" is not a GPU device key)"},
      {"DeviceKeyCpu", R"({"gpuConfigInfo": {"CPU:0": {}}})",
       R"(gpuConfigInfo."CPU:0" is not a GPU device key)"},
      {"DeviceKeyEmpty", R"({"gpuConfigInfo": {"": {}}})",
       R"(gpuConfigInfo."" is not a GPU device key)"},
      {"DuplicateDeviceAfterNormalising",
       R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 1}, "/device:GPU:0": {}}})",
       R"(gpuConfigInfo."/device:GPU:0" and gpuConfigInfo."GPU:0" name the same device, GPU:0)"},
      {"DuplicateBusIdAfterLowerCasing",
       R"({"gpuConfigInfo": {"0000:5a:00.0": {}, "0000:5A:00.0": {}}})",
       "name the same device, 0000:5a:00.0"},
      {"DuplicateBusIdWithAndWithoutItsDomain",
       R"({"gpuConfigInfo": {"0000:5a:00.0": {}, "5a:00.0": {}}})",
       "name the same device, 0000:5a:00.0"},
      {"MemNegative", mem("-5"), kMem + " number of bytes, got -5"},
      {"MemZero", mem("0"), kMem + " number of bytes, got 0"},
      {"MemFloat", mem("1.5"), kMem + " number of bytes, got 1.5"},
      {"MemExponent", mem("1e9"), kMem + " number of bytes, got 1000000000.0"},
      {"MemWholeFloat", mem("8589934592.0"), kMem},
      {"MemAboveInt64Max", mem("9223372036854775808"),
       kMem + " number of bytes no larger than 9223372036854775807, got 9223372036854775808"},
      {"MemAboveUint64Max", mem("18446744073709551616"), kMem},
      {"MemString", mem(R"("8589934592")"), kMem + R"( number of bytes, got "8589934592")"},
      {"MemBool", mem("true"), kMem + " number of bytes, got true"},
      {"MemNull", mem("null"), kMem + " number of bytes, got null"},
      {"MemObject", mem("{}"), kMem + " number of bytes, got an object"},
      {"PerfAboveRange", R"({"perfControl": 101})", "perfControl must be an integer in 0..100"},
      {"PerfNegative", R"({"perfControl": -1})", "perfControl must be an integer in 0..100"},
      {"PerfFloat", R"({"perfControl": 50.5})", "got 50.5"},
      {"PerfString", R"({"perfControl": "50"})", R"(got "50")"},
      {"PerfArray", R"({"perfControl": [50]})", "perfControl must be an integer in 0..100"},
      {"BadFieldAmongGoodOnes",
       R"({"gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 1}, "GPU:1": {"maxDeviceMem": -1}},
           "perfControl": 10})",
       R"(gpuConfigInfo."GPU:1".maxDeviceMem)"},
  };
}

class GPUConfigRejectTest : public ::testing::TestWithParam<RejectCase> {};

TEST_P(GPUConfigRejectTest, IsInvalidArgumentNamingFileAndField) {
  absl::StatusOr<GPUConfig> config = ParseGPUConfig(GetParam().content, kFile);
  ASSERT_FALSE(config.ok()) << "accepted: " << GPUConfigToJson(*config);
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(config.status().message(), HasSubstr("GPU config '/tmp/job/gpu.json': "));
  EXPECT_THAT(config.status().message(), HasSubstr(GetParam().message_part));
}

INSTANTIATE_TEST_SUITE_P(Rejected, GPUConfigRejectTest, ::testing::ValuesIn(RejectCases()),
                         [](const auto& info) { return info.param.name; });

TEST(GPUConfigTest, SyntaxErrorGivesLineColumnAndByte) {
  absl::StatusOr<GPUConfig> config = ParseGPUConfig("{\n  \"perfControl\": 5,\n  ]", "f.json");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr("GPU config 'f.json': not valid JSON: "));
  EXPECT_THAT(config.status().message(), HasSubstr("line 3, column 3"));
  EXPECT_THAT(config.status().message(), HasSubstr("(byte offset 24)"));
}

TEST(GPUConfigTest, BinaryBytesInParserMessageAreEscaped) {
  absl::StatusOr<GPUConfig> config = ParseGPUConfig("\x01\xfe", "f.json");
  ASSERT_FALSE(config.ok());
  for (char c : config.status().message()) {
    EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "byte " << static_cast<int>(c);
  }
}

TEST(GPUConfigTest, LongKeysAreShortenedInMessages) {
  const std::string key(10000, 'k');
  absl::StatusOr<GPUConfig> config =
      ParseGPUConfig(R"({"gpuConfigInfo": {")" + key + R"(": {}}})", "f.json");
  ASSERT_FALSE(config.ok());
  EXPECT_LT(config.status().message().size(), 400u);
  EXPECT_THAT(config.status().message(), HasSubstr("...\" is not a GPU device key"));
}

TEST(GPUConfigTest, DeeplyNestedUnknownValueIsAccepted) {
  const std::string nested = std::string(100000, '[') + std::string(100000, ']');
  absl::StatusOr<GPUConfig> config = ParseGPUConfig(R"({"junk": )" + nested + "}", "f.json");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(*config, GPUConfig{});
}

TEST(GPUConfigTest, DeeplyNestedWrongValueIsRejectedWithoutPrintingIt) {
  const std::string nested = std::string(100000, '[') + std::string(100000, ']');
  absl::StatusOr<GPUConfig> config = ParseGPUConfig(R"({"perfControl": )" + nested + "}", "f.json");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr("got an array"));
}

TEST(GPUConfigTest, UnknownKeysAreReportedAsWarnings) {
  std::vector<std::string> warnings = {"earlier warning"};
  absl::StatusOr<GPUConfig> config = ParseGPUConfig(
      R"({"version": 3, "gpuConfigInfo": {"GPU:0": {"maxDeviceMem": 1, "max-compute": 2}}})",
      "f.json", &warnings);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(warnings,
              ElementsAre("earlier warning",
                          "GPU config 'f.json': ignoring unknown key "
                          R"(gpuConfigInfo."GPU:0"."max-compute")",
                          "GPU config 'f.json': ignoring unknown key version"));
}

TEST(GPUConfigTest, RejectedFileLeavesWarningsUnchanged) {
  std::vector<std::string> warnings;
  absl::StatusOr<GPUConfig> config =
      ParseGPUConfig(R"({"version": 3, "perfControl": 101})", "f.json", &warnings);
  EXPECT_FALSE(config.ok());
  EXPECT_TRUE(warnings.empty());
}

// ---- Device keys ----------------------------------------------------------

TEST(NormalizeGPUConfigDeviceKeyTest, AcceptsBusIdsAndGpuNames) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"0000:50:00.0", "0000:50:00.0"},
      {"0000:5A:1f.7", "0000:5a:1f.7"},
      {"ABCD:ef:00.1", "abcd:ef:00.1"},
      {"50:00.0", "0000:50:00.0"},
      {"5A:1F.7", "0000:5a:1f.7"},
      {"GPU:0", "GPU:0"},
      {"GPU:123", "GPU:123"},
      {"/device:GPU:3", "GPU:3"},
      {"/job:localhost/replica:0/task:0/device:GPU:7", "GPU:7"},
      {"GPU:2147483647", "GPU:2147483647"},
  };
  for (const auto& [key, normal] : cases) {
    absl::StatusOr<std::string> got = NormalizeGPUConfigDeviceKey(key);
    ASSERT_TRUE(got.ok()) << key << ": " << got.status();
    EXPECT_EQ(*got, normal) << key;
    EXPECT_EQ(NormalizeGPUConfigDeviceKey(*got).value_or(""), *got) << "not idempotent: " << key;
  }
}

TEST(NormalizeGPUConfigDeviceKeyTest, RejectsEverythingElse) {
  const std::vector<std::string> keys = {
      "", "GPU:", "GPU:x", "GPU:-1", "GPU:+1", "GPU: 1", "GPU:01", "GPU:2147483648", "GPU:0 ",
      " GPU:0", "gpu:0", "/gpu:0", "CPU:0", "/device:CPU:0", "device:GPU:0",
      "/job:worker/replica:0/task:0/device:GPU:0", "/job:localhost/replica:0/task:1/device:GPU:0",
      "0000:50:00.8", "0000:50:20.0", "0000:50:00", "0000:50:00.00", "00000000:50:00.0",
      "000g:50:00.0", "0000-50-00.0", "50:00.8", "5g:00.0", "50:00", ":50:00.0"};
  for (const std::string& key : keys) {
    absl::StatusOr<std::string> got = NormalizeGPUConfigDeviceKey(key);
    ASSERT_FALSE(got.ok()) << "accepted " << key << " as " << *got;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(got.status().message(), HasSubstr("is not a GPU device key")) << key;
  }
}

// ---- Round trip -----------------------------------------------------------

TEST(GPUConfigToJsonTest, RoundTripsThroughParse) {
  const std::vector<GPUConfig> configs = {
      {},
      Config({}, 0),
      Config({}, 100),
      Config({{"GPU:0", 1}}),
      Config({{"0000:50:00.0", int64_t{8} << 30},
              {"0000:51:00.0", std::numeric_limits<int64_t>::max()},
              {"GPU:12", 4096}},
             37),
  };
  for (const GPUConfig& config : configs) {
    const std::string json = GPUConfigToJson(config);
    absl::StatusOr<GPUConfig> parsed = ParseGPUConfig(json, "round-trip");
    ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << json;
    EXPECT_EQ(*parsed, config) << json;
  }
}

TEST(GPUConfigToJsonTest, WritesTheSchedulerFormat) {
  GPUConfig config = Config({{"GPU:1", 4096}}, 50);
  EXPECT_EQ(GPUConfigToJson(config),
            "{\n"
            "  \"gpuConfigInfo\": {\n"
            "    \"GPU:1\": {\n"
            "      \"maxDeviceMem\": 4096\n"
            "    }\n"
            "  },\n"
            "  \"perfControl\": 50\n"
            "}\n");
}

// ---- The fuzz corpus ------------------------------------------------------

// Every file of tests/fuzz/corpus/gpu_config: bad_*.json must be rejected,
// naming the file; good_*.json must parse (and round-trip).
TEST(GPUConfigCorpusTest, BadFilesAreRejectedAndGoodFilesParse) {
  const std::filesystem::path dir =
      std::filesystem::path(MINITF_SOURCE_DIR) / "tests/fuzz/corpus/gpu_config";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int bad = 0;
  int good = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    std::ifstream in(entry.path(), std::ios::binary);
    ASSERT_TRUE(in) << entry.path();
    const std::string content{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    absl::StatusOr<GPUConfig> config = ParseGPUConfig(content, entry.path().string());
    if (absl::StartsWith(name, "bad_") && absl::EndsWith(name, ".json")) {
      ++bad;
      ASSERT_FALSE(config.ok()) << name << " was accepted: " << GPUConfigToJson(*config);
      EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument) << name;
      EXPECT_THAT(config.status().message(), HasSubstr(entry.path().string()));
    } else if (absl::StartsWith(name, "good_") && absl::EndsWith(name, ".json")) {
      ++good;
      ASSERT_TRUE(config.ok()) << name << ": " << config.status();
      absl::StatusOr<GPUConfig> again = ParseGPUConfig(GPUConfigToJson(*config), name);
      ASSERT_TRUE(again.ok()) << name << ": " << again.status();
      EXPECT_EQ(*again, *config) << name;
    } else {
      ADD_FAILURE() << "corpus file " << name << " is named neither bad_*.json nor good_*.json";
    }
  }
  EXPECT_GE(bad, 30);
  EXPECT_GE(good, 8);
}

}  // namespace
}  // namespace minitf
