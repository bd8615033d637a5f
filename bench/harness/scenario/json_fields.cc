#include "bench/harness/scenario/json_fields.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "stream/sim_gpu/sim_gpu_options.h"

namespace minitf::harness {
namespace {

using Json = nlohmann::json;

// Levenshtein distance between `a` and `b`, ignoring ASCII case.
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same = absl::ascii_tolower(a[i - 1]) == absl::ascii_tolower(b[j - 1]);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// An integer that fits int64 (JSON's non-negative integers are unsigned).
std::optional<int64_t> AsInt64(const Json& v) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  return std::nullopt;
}

// The SAX handler of CheckJsonText: tracks where the parser is, as a stack
// of the arrays and objects open, and stops at the first problem.
class TextChecker final : public nlohmann::json_sax<Json> {
 public:
  explicit TextChecker(int max_depth) : max_depth_(max_depth) {}

  // The first problem found: "" when none.
  const std::string& problem() const { return problem_; }

  bool null() override { return Value(); }
  bool boolean(bool /*value*/) override { return Value(); }
  bool number_integer(number_integer_t /*value*/) override { return Value(); }
  bool number_unsigned(number_unsigned_t /*value*/) override { return Value(); }
  bool number_float(number_float_t /*value*/, const string_t& /*text*/) override { return Value(); }
  bool string(string_t& /*value*/) override { return Value(); }
  bool binary(binary_t& /*value*/) override { return Value(); }
  bool start_object(std::size_t /*elements*/) override { return Open(/*array=*/false); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t /*elements*/) override { return Open(/*array=*/true); }
  bool end_array() override { return Close(); }

  bool key(string_t& key) override {
    Frame& object = frames_.back();
    object.key = key;
    if (!object.keys.insert(key).second) {
      problem_ = absl::StrCat(Path(), " is given twice");
      return false;
    }
    return true;
  }

  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const Json::exception& error) override {
    // "[json.exception.parse_error.101] parse error at line 2, column 12: ..."
    absl::string_view what = error.what();
    if (const size_t end = what.find("] "); end != absl::string_view::npos) {
      what.remove_prefix(end + 2);
    }
    problem_ = absl::StrCat("not valid JSON: ", PrintableText(what, /*quoted=*/false, 200));
    return false;
  }

 private:
  struct Frame {
    bool array = false;
    size_t elements = 0;         // an array's values so far
    std::string key;             // an object's current key
    std::set<std::string> keys;  // an object's keys so far
  };

  bool Value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().elements;
    return true;
  }

  bool Open(bool array) {
    Value();
    if (frames_.size() >= static_cast<size_t>(max_depth_)) {
      problem_ = absl::StrCat(Path(), " nests values more than ", max_depth_, " deep");
      return false;
    }
    frames_.emplace_back();
    frames_.back().array = array;
    return true;
  }

  bool Close() {
    frames_.pop_back();
    return true;
  }

  // Where the parser is: "jobs[1].perf_control".
  std::string Path() const {
    std::string path;
    for (const Frame& frame : frames_) {
      if (frame.array) {
        absl::StrAppend(&path, "[", frame.elements - 1, "]");
      } else {
        absl::StrAppend(&path, path.empty() ? "" : ".", PrintableText(frame.key, /*quoted=*/false));
      }
    }
    return path;
  }

  const int max_depth_;
  std::vector<Frame> frames_;
  std::string problem_;
};

}  // namespace

std::string PrintableText(absl::string_view text, bool quoted, size_t max_bytes) {
  std::string out = quoted ? "\"" : "";
  for (size_t i = 0; i < text.size() && i < max_bytes; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (quoted && (c == '"' || c == '\\')) {
      out += {'\\', static_cast<char>(c)};
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += absl::StrFormat("\\x%02x", c);
    }
  }
  if (text.size() > max_bytes) out += "...";
  if (quoted) out += "\"";
  if (text.size() > max_bytes) absl::StrAppend(&out, " (", text.size(), " bytes)");
  return out;
}

std::string NumberText(double value) {
  if (std::trunc(value) == value && std::fabs(value) < 1e15) {
    return absl::StrCat(static_cast<int64_t>(value));
  }
  return absl::StrCat(value);
}

std::string DescribeJson(const Json& value) {
  if (value.is_string()) return QuotedText(value.get_ref<const std::string&>());
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return value.dump();
}

std::string UnknownKeyMessage(absl::string_view key, absl::Span<const absl::string_view> known) {
  std::optional<absl::string_view> best;
  size_t best_distance = 0;
  // Known keys are short; a long key is like none of them (and its distance
  // would cost time proportional to its length).
  if (key.size() <= 128) {
    const std::string lower = absl::AsciiStrToLower(key);
    for (absl::string_view candidate : known) {
      const size_t d = EditDistance(key, candidate);
      const std::string lower_candidate = absl::AsciiStrToLower(candidate);
      const bool contains = key.size() >= 3 && (absl::StrContains(lower_candidate, lower) ||
                                                absl::StrContains(lower, lower_candidate));
      if ((d <= 2 || contains) && (!best || d < best_distance)) {
        best = candidate;
        best_distance = d;
      }
    }
  }
  const std::string hint = best ? absl::StrCat("did you mean \"", *best, "\"?")
                                : absl::StrCat("known keys: ", absl::StrJoin(known, ", "));
  return absl::StrCat("unknown key ", QuotedText(key), " (", hint, ")");
}

absl::Status CheckJsonText(absl::string_view content, absl::string_view file, int max_depth) {
  TextChecker checker(max_depth);
  Json::sax_parse(content.begin(), content.end(), &checker);
  if (checker.problem().empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("scenario '", file, "': ", checker.problem()));
}

JsonFields::JsonFields(const Json& object, std::string file, std::string path)
    : object_(object), file_(std::move(file)), path_(std::move(path)) {}

absl::Status JsonFields::Error(absl::string_view field, absl::string_view what) const {
  const absl::string_view dot = path_.empty() || field.empty() ? "" : ".";
  return absl::InvalidArgumentError(absl::StrCat("scenario '", file_, "': ", path_, dot,
                                                 PrintableText(field, /*quoted=*/false), " ",
                                                 what));
}

absl::Status JsonFields::CheckKeys(absl::Span<const absl::string_view> known) const {
  for (const auto& [key, value] : object_.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    return absl::InvalidArgumentError(absl::StrCat("scenario '", file_, "': ", path_,
                                                   path_.empty() ? "" : ": ",
                                                   UnknownKeyMessage(key, known)));
  }
  return absl::OkStatus();
}

absl::Status JsonFields::String(const std::string& field, std::string* out, bool required) const {
  if (!Has(field)) return required ? Error(field, "is missing") : absl::OkStatus();
  const Json& v = object_.at(field);
  if (!v.is_string()) return Error(field, absl::StrCat("must be a string, got ", DescribeJson(v)));
  *out = v.get<std::string>();
  return absl::OkStatus();
}

absl::Status JsonFields::Number(const std::string& field, double* out, double min, double max,
                                absl::string_view unit) const {
  if (!Has(field)) return absl::OkStatus();
  const Json& v = object_.at(field);
  const double d = v.is_number() ? v.get<double>() : std::nan("");
  if (!std::isfinite(d) || d < min || d > max) {
    return Error(field, absl::StrCat("must be a number", unit.empty() ? "" : " of ", unit, " in ",
                                     NumberText(min), "..", NumberText(max), ", got ",
                                     DescribeJson(v)));
  }
  *out = d;
  return absl::OkStatus();
}

absl::Status JsonFields::Seconds(const std::string& field, double* out, double min,
                                 double max) const {
  return Number(field, out, min, max, "seconds");
}

absl::Status JsonFields::Integer(const std::string& field, int64_t* out, int64_t min,
                                 int64_t max) const {
  if (!Has(field)) return absl::OkStatus();
  const Json& v = object_.at(field);
  const std::optional<int64_t> i = AsInt64(v);
  if (!i || *i < min || *i > max) {
    return Error(field,
                 absl::StrCat("must be an integer in ", min, "..", max, ", got ", DescribeJson(v)));
  }
  *out = *i;
  return absl::OkStatus();
}

absl::Status JsonFields::Size(const std::string& field, int64_t* out) const {
  if (!Has(field)) return absl::OkStatus();
  const Json& v = object_.at(field);
  std::optional<int64_t> bytes = AsInt64(v);
  int64_t parsed = 0;
  if (v.is_string() &&
      se::ParseByteSize(absl::StripAsciiWhitespace(v.get_ref<const std::string&>()), &parsed)) {
    bytes = parsed;
  }
  if (!bytes || *bytes <= 0) {
    return Error(field, absl::StrCat("must be a positive size (bytes, or e.g. \"4GiB\"), got ",
                                     DescribeJson(v)));
  }
  *out = *bytes;
  return absl::OkStatus();
}

}  // namespace minitf::harness
