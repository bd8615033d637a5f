// Reading the harness's JSON files: CheckJsonText finds what a parsed tree
// cannot show (a key given twice, of which the tree keeps one value
// silently) and says where bad JSON goes wrong; JsonFields then reads one
// object of the tree field by field. Errors are InvalidArgument, "scenario
// '<file>': " then the field's path ("jobs[1].perf_control") and what is
// wrong, showing the value as given, escaped and kept short however long
// the value is.
//
//   MINITF_RETURN_IF_ERROR(CheckJsonText(content, file, /*max_depth=*/32));
//   nlohmann::json root = nlohmann::json::parse(content, nullptr, false);
//   JsonFields f(root, file, "jobs[0]");
//   MINITF_RETURN_IF_ERROR(f.CheckKeys(kJobKeys));
//   MINITF_RETURN_IF_ERROR(f.Integer("batch_size", &batch, 1, 65536));
#ifndef MINITF_BENCH_HARNESS_SCENARIO_JSON_FIELDS_H_
#define MINITF_BENCH_HARNESS_SCENARIO_JSON_FIELDS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "nlohmann/json.hpp"

namespace minitf::harness {

// `text` as a terminal shows it: bytes outside printable ASCII as \xHH (\n
// and \t as such); past `max_bytes`, cut with "..." and followed by the
// length. `quoted`: within double quotes, '"' and '\' escaped.
std::string PrintableText(absl::string_view text, bool quoted, size_t max_bytes = 48);
inline std::string QuotedText(absl::string_view text) { return PrintableText(text, true); }

// A number for a message: an integral one without exponent (10000000, not
// 1e+07), others as absl::StrCat writes them.
std::string NumberText(double value);

// A value for an error message: a number, true, false or null as JSON
// writes it, a string quoted (QuotedText), "an array" or "an object".
std::string DescribeJson(const nlohmann::json& value);

// "unknown key "perfControl" (did you mean "perf_control"?)": the known key
// closest to `key` (within two edits ignoring case, or containing it or
// contained in it), else the list of known keys.
std::string UnknownKeyMessage(absl::string_view key, absl::Span<const absl::string_view> known);

// One pass over `content` as JSON, before it is parsed into a tree. OK, or
// InvalidArgument naming `file` for the first of: bad JSON (the parser's
// message, with line and column), a key given twice in one object (naming
// its path), nesting deeper than `max_depth` arrays and objects (a file of
// brackets would otherwise cost a gigabyte of tree).
absl::Status CheckJsonText(absl::string_view content, absl::string_view file, int max_depth);

// Reads the fields of one JSON object. The object must outlive this.
class JsonFields {
 public:
  // `path` names the object in errors ("" for the top level).
  JsonFields(const nlohmann::json& object, std::string file, std::string path);

  // "scenario '<file>': <path>.<field> <what>".
  absl::Status Error(absl::string_view field, absl::string_view what) const;

  // An error for the first key not in `known` (UnknownKeyMessage).
  absl::Status CheckKeys(absl::Span<const absl::string_view> known) const;

  bool Has(const std::string& field) const { return object_.contains(field); }

  // Each reads `field` into `*out` when it is present, leaving `*out` as it
  // is when it is not (an error for a missing `required` string), and is an
  // error naming the field and the value when it has the wrong type or
  // range.
  absl::Status String(const std::string& field, std::string* out, bool required = false) const;
  // A finite number in min..max; errors call it a number of `unit`, when
  // given.
  absl::Status Number(const std::string& field, double* out, double min, double max,
                      absl::string_view unit = "") const;
  // A Number of "seconds".
  absl::Status Seconds(const std::string& field, double* out, double min, double max) const;
  absl::Status Integer(const std::string& field, int64_t* out, int64_t min, int64_t max) const;
  // A positive size: an integer of bytes or a string such as "4GiB".
  absl::Status Size(const std::string& field, int64_t* out) const;

 private:
  const nlohmann::json& object_;
  const std::string file_;
  const std::string path_;
};

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_SCENARIO_JSON_FIELDS_H_
