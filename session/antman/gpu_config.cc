#include "session/antman/gpu_config.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "platform/status_macros.h"

namespace minitf {
namespace {

using Json = nlohmann::json;

constexpr absl::string_view kGPUConfigInfo = "gpuConfigInfo";
constexpr absl::string_view kPerfControl = "perfControl";
constexpr absl::string_view kMaxDeviceMem = "maxDeviceMem";

constexpr absl::string_view kLocalDevicePrefix = "/job:localhost/replica:0/task:0/device:";
constexpr absl::string_view kDevicePrefix = "/device:";
constexpr absl::string_view kGPUPrefix = "GPU:";
constexpr absl::string_view kDeviceKeyForms =
    "expected a PCI bus id such as \"0000:50:00.0\" or \"50:00.0\" or a GPU name such as "
    "\"GPU:0\", "
    "\"/device:GPU:0\" or \"/job:localhost/replica:0/task:0/device:GPU:0\"";

// Keys and string values longer than this are shortened in messages.
constexpr size_t kMaxQuotedBytes = 64;

// `text` as a JSON string literal (escaped, ASCII only), for messages; text
// longer than kMaxQuotedBytes is cut and marked with "...".
std::string Quote(absl::string_view text) {
  const bool cut = text.size() > kMaxQuotedBytes;
  std::string quoted = Json(std::string(text.substr(0, kMaxQuotedBytes)))
                           .dump(-1, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace);
  if (cut) quoted.insert(quoted.size() - 1, "...");
  return quoted;
}

// One step of a field path: a key that reads as an identifier as it is
// (perfControl), any other key quoted ("GPU:0", "").
std::string PathStep(absl::string_view key) {
  bool identifier = !key.empty() && !absl::ascii_isdigit(static_cast<unsigned char>(key[0]));
  for (char c : key) {
    identifier = identifier && (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_');
  }
  return identifier ? std::string(key) : Quote(key);
}

std::string JoinPath(absl::string_view parent, absl::string_view step) {
  return parent.empty() ? std::string(step) : absl::StrCat(parent, ".", step);
}

// A JSON value for the "got ..." of a message: scalars as JSON writes them,
// containers by kind only (writing one out would recurse as deep as the input
// nests, and could be long).
std::string Describe(const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return Quote(value.get_ref<const Json::string_t&>());
    default:
      return value.dump(-1, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace);
  }
}

// `text` with every byte outside printable ASCII written as \xNN: parser
// messages quote the input, which may be binary.
std::string Printable(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) {
      absl::StrAppendFormat(&out, "\\x%02x", byte);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

absl::Status Invalid(absl::string_view file_name, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("GPU config '", file_name, "': ", what));
}

std::string UnknownKeyWarning(absl::string_view file_name, absl::string_view path) {
  return absl::StrCat("GPU config '", file_name, "': ignoring unknown key ", path);
}

// The first pass over a file's text: reports the first syntax error, with its
// position, and the first key repeated within one object, which a DOM parse
// would silently resolve by keeping the last copy. Keeps one frame per open
// object or array, so it knows the field path of a repeated key.
class JsonChecker final : public nlohmann::json_sax<Json> {
 public:
  // The first problem found, a message naming it; empty while there is none.
  const std::string& error() const { return error_; }

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }

  bool start_object(std::size_t) override {
    Value();
    frames_.emplace_back().is_object = true;
    return true;
  }
  bool key(string_t& key) override {
    Frame& frame = frames_.back();
    if (!frame.keys.insert(key).second) {
      error_ = absl::StrCat(PathTo(key), " is given twice in one JSON object");
      return false;
    }
    frame.last_key = key;
    return true;
  }
  bool end_object() override {
    frames_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    Value();
    frames_.emplace_back().is_object = false;
    return true;
  }
  bool end_array() override {
    frames_.pop_back();
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const Json::exception& error) override {
    // what() reads "[json.exception.parse_error.101] parse error at line 1,
    // column 3: ..."; the bracketed id means nothing to the reader.
    absl::string_view what = error.what();
    if (absl::StartsWith(what, "[json.exception.")) {
      const size_t end = what.find("] ");
      if (end != absl::string_view::npos) what.remove_prefix(end + 2);
    }
    // `position` counts the bytes read, the offending one included.
    error_ = absl::StrCat("not valid JSON: ", Printable(what), " (byte offset ",
                          position > 0 ? position - 1 : 0, ")");
    return false;
  }

 private:
  struct Frame {
    bool is_object = false;
    std::set<std::string> keys;  // Objects: the keys seen so far.
    std::string last_key;        // Objects: the key of the value being read.
    int64_t index = -1;          // Arrays: the index of the value being read.
  };

  // Every value (scalar or container) starts here.
  bool Value() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().index;
    return true;
  }

  // The field path of `key` in the innermost open object.
  std::string PathTo(absl::string_view key) const {
    std::string path;
    for (size_t i = 0; i + 1 < frames_.size(); ++i) {
      if (frames_[i].is_object) {
        path = JoinPath(path, PathStep(frames_[i].last_key));
      } else {
        absl::StrAppend(&path, "[", frames_[i].index, "]");
      }
    }
    return JoinPath(path, PathStep(key));
  }

  std::vector<Frame> frames_;
  std::string error_;
};

// True for "dddd:bb:dd.f": hex domain and bus, device 00..1f, function 0..7.
bool IsPciBusId(absl::string_view key) {
  if (key.size() != 12 || key[4] != ':' || key[7] != ':' || key[10] != '.') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 9}) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(key[i]))) return false;
  }
  return (key[8] == '0' || key[8] == '1') && key[11] >= '0' && key[11] <= '7';
}

// The normal form of a device key (see NormalizeGPUConfigDeviceKey), or
// nullopt when `key` is not one.
std::optional<std::string> NormalKey(absl::string_view key) {
  if (IsPciBusId(key)) return absl::AsciiStrToLower(key);
  // AntMan's form, the statistics file's keys: the domain left out.
  if (const std::string with_domain = absl::StrCat("0000:", key); IsPciBusId(with_domain)) {
    return absl::AsciiStrToLower(with_domain);
  }
  absl::string_view ordinal = key;
  if (!absl::ConsumePrefix(&ordinal, kLocalDevicePrefix)) {
    absl::ConsumePrefix(&ordinal, kDevicePrefix);
  }
  if (!absl::ConsumePrefix(&ordinal, kGPUPrefix)) return std::nullopt;
  if (ordinal.empty() || (ordinal.size() > 1 && ordinal[0] == '0')) return std::nullopt;
  for (char c : ordinal) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  int value = 0;
  if (!absl::SimpleAtoi(ordinal, &value)) return std::nullopt;  // Out of int's range.
  return absl::StrCat(kGPUPrefix, value);
}

absl::StatusOr<int64_t> ParseMaxDeviceMem(const Json& value, absl::string_view path,
                                          absl::string_view file_name) {
  constexpr uint64_t kMaxBytes = std::numeric_limits<int64_t>::max();
  if (value.is_number_unsigned()) {
    const uint64_t bytes = value.get<uint64_t>();
    if (bytes >= 1 && bytes <= kMaxBytes) return static_cast<int64_t>(bytes);
    if (bytes > kMaxBytes) {
      return Invalid(file_name, absl::StrCat(path,
                                             " must be a positive integer number of bytes "
                                             "no larger than ",
                                             kMaxBytes, ", got ", Describe(value)));
    }
  }
  return Invalid(file_name, absl::StrCat(path, " must be a positive integer number of bytes, got ",
                                         Describe(value)));
}

absl::StatusOr<int> ParsePerfControl(const Json& value, absl::string_view file_name) {
  if (value.is_number_unsigned() && value.get<uint64_t>() <= 100) {
    return static_cast<int>(value.get<uint64_t>());
  }
  return Invalid(file_name,
                 absl::StrCat(kPerfControl,
                              " must be an integer in 0..100 (100 = unrestricted, 1..99 = target "
                              "GPU share, 0 = suspend), got ",
                              Describe(value)));
}

// Adds the devices of gpuConfigInfo (`info`) to `config`.
absl::Status ParseGPUConfigInfo(const Json& info, absl::string_view file_name, GPUConfig* config,
                                std::vector<std::string>* warnings) {
  if (!info.is_object()) {
    return Invalid(file_name, absl::StrCat(kGPUConfigInfo,
                                           " must be an object mapping device keys to settings, "
                                           "got ",
                                           Describe(info)));
  }
  std::map<std::string, std::string> written_key;  // Normalised key -> the key as written.
  for (const auto& [key, entry] : info.get_ref<const Json::object_t&>()) {
    // Device keys are always quoted in paths: gpuConfigInfo."GPU:0".
    const std::string path = JoinPath(kGPUConfigInfo, Quote(key));
    std::optional<std::string> device = NormalKey(key);
    if (!device.has_value()) {
      return Invalid(file_name, absl::StrCat(path, " is not a GPU device key: ", kDeviceKeyForms));
    }
    auto [it, inserted] = written_key.emplace(*device, key);
    if (!inserted) {
      return Invalid(file_name, absl::StrCat(JoinPath(kGPUConfigInfo, Quote(it->second)), " and ",
                                             path, " name the same device, ", *device));
    }
    if (!entry.is_object()) {
      return Invalid(file_name, absl::StrCat(path, " must be an object of device settings, got ",
                                             Describe(entry)));
    }
    for (const auto& [setting, value] : entry.get_ref<const Json::object_t&>()) {
      const std::string setting_path = JoinPath(path, PathStep(setting));
      if (setting == kMaxDeviceMem) {
        MINITF_ASSIGN_OR_RETURN(config->max_device_mem[*device],
                                ParseMaxDeviceMem(value, setting_path, file_name));
      } else {
        warnings->push_back(UnknownKeyWarning(file_name, setting_path));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GPUConfig> ParseGPUConfig(absl::string_view content, absl::string_view file_name,
                                         std::vector<std::string>* warnings) {
  if (content.find_first_not_of(" \t\n\r") == absl::string_view::npos) {
    return Invalid(file_name, "the file is empty (a config that changes nothing is {})");
  }
  // nlohmann's lexer takes a NUL byte for the end of the input and would
  // ignore what follows it; no valid JSON text holds one.
  if (const size_t nul = content.find('\0'); nul != absl::string_view::npos) {
    return Invalid(file_name, absl::StrCat("not valid JSON: a NUL byte (byte offset ", nul, ")"));
  }
  const char* begin = content.data();
  const char* end = content.data() + content.size();

  JsonChecker checker;
  if (!Json::sax_parse(begin, end, &checker) || !checker.error().empty()) {
    return Invalid(file_name, checker.error().empty() ? "not valid JSON" : checker.error());
  }
  const Json root = Json::parse(begin, end, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return Invalid(file_name, "not valid JSON");  // The checker passed it.
  if (!root.is_object()) {
    return Invalid(file_name,
                   absl::StrCat("the file must hold a JSON object, got ", Describe(root)));
  }

  GPUConfig config;
  std::vector<std::string> new_warnings;
  for (const auto& [key, value] : root.get_ref<const Json::object_t&>()) {
    if (key == kGPUConfigInfo) {
      MINITF_RETURN_IF_ERROR(ParseGPUConfigInfo(value, file_name, &config, &new_warnings));
    } else if (key == kPerfControl) {
      MINITF_ASSIGN_OR_RETURN(config.perf_control, ParsePerfControl(value, file_name));
    } else {
      new_warnings.push_back(UnknownKeyWarning(file_name, PathStep(key)));
    }
  }
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), std::make_move_iterator(new_warnings.begin()),
                     std::make_move_iterator(new_warnings.end()));
  }
  return config;
}

absl::StatusOr<std::string> NormalizeGPUConfigDeviceKey(absl::string_view key) {
  std::optional<std::string> normal = NormalKey(key);
  if (!normal.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quote(key), " is not a GPU device key: ", kDeviceKeyForms));
  }
  return *std::move(normal);
}

std::string GPUConfigToJson(const GPUConfig& config) {
  Json devices = Json::object();
  for (const auto& [device, bytes] : config.max_device_mem) {
    devices[device][std::string(kMaxDeviceMem)] = bytes;
  }
  Json root = Json::object();
  root[std::string(kGPUConfigInfo)] = std::move(devices);
  if (config.perf_control.has_value()) root[std::string(kPerfControl)] = *config.perf_control;
  return root.dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace) + "\n";
}

}  // namespace minitf
