#include "runtime/graph_def_io.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "platform/file.h"
#include "runtime/proto/graph_def_proto.h"

namespace minitf {
namespace {

// Collects the text parser's messages instead of letting protobuf log them.
class ParseErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (first_.empty()) first_ = absl::StrCat("line ", line + 1, ":", column + 1, ": ", message);
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber, const std::string&) override {}
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

absl::Status WithSource(const absl::Status& s, absl::string_view what) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(what, ": ", s.message()));
}

// Protocol buffers are at most 2 GiB - 1 bytes (their sizes are int).
constexpr int64_t kMaxGraphFileBytes = INT32_MAX;

// How deep messages may nest in a GraphDef, text or binary: protobuf's
// default for binary ones. TensorFlow's graphs nest a few levels (a
// function attr's attrs); without a bound, a hostile file's nesting
// overflows the parser's stack.
constexpr int kMaxNesting = 100;

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  return ReadRegularFile(path, kMaxGraphFileBytes, "a GraphDef");
}

absl::Status WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write '", path, "'"));
  out << contents;
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat("error writing '", path, "'"));
  return absl::OkStatus();
}

// Parses `bytes` with messages nested at most `limit` deep.
bool ParseWithNestingLimit(absl::string_view bytes, int limit, tensorflow::GraphDef* proto) {
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  input.SetRecursionLimit(limit);
  return proto->ParseFromCodedStream(&input) && input.ConsumedEntireMessage();
}

// Why `bytes`, which do not parse as a binary GraphDef within kMaxNesting,
// are not one, as far as can be told.
std::string WhyNotBinary(absl::string_view bytes) {
  const size_t start = bytes.find_first_not_of(" \t\r\n");
  const bool text_like =
      start != absl::string_view::npos &&
      std::all_of(bytes.begin(), bytes.end(), [](char c) {
        return absl::ascii_isprint(static_cast<unsigned char>(c)) ||
               absl::ascii_isspace(static_cast<unsigned char>(c));
      });
  if (text_like) {
    return "not a binary GraphDef: the file is text; a text GraphDef is read from a .pbtxt "
           "file";
  }
  tensorflow::GraphDef deeper;
  if (ParseWithNestingLimit(bytes, 10 * kMaxNesting, &deeper)) {
    return absl::StrCat("the GraphDef nests messages more than ", kMaxNesting,
                        " levels deep, the most minitf reads");
  }
  return "not a binary GraphDef: the protocol buffer does not parse (it is truncated or "
         "corrupt, or a string in it is not UTF-8)";
}

bool IsTextPath(absl::string_view path) {
  return absl::EndsWith(path, ".pbtxt") || absl::EndsWith(path, ".pbtext") ||
         absl::EndsWith(path, ".txt");
}

}  // namespace

absl::StatusOr<GraphDef> ParseBinaryGraphDef(absl::string_view bytes, absl::string_view what) {
  if (bytes.size() > static_cast<size_t>(kMaxGraphFileBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", bytes.size(),
                                                   " bytes, more than a GraphDef may have (",
                                                   kMaxGraphFileBytes, ")"));
  }
  tensorflow::GraphDef proto;
  if (!ParseWithNestingLimit(bytes, kMaxNesting, &proto)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", WhyNotBinary(bytes)));
  }
  absl::StatusOr<GraphDef> graph = GraphDefFromProto(proto);
  if (!graph.ok()) return WithSource(graph.status(), what);
  return graph;
}

absl::StatusOr<GraphDef> ParseTextGraphDef(absl::string_view text, absl::string_view what) {
  tensorflow::GraphDef proto;
  google::protobuf::TextFormat::Parser parser;
  parser.SetRecursionLimit(kMaxNesting);
  ParseErrors errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(text), &proto)) {
    // minitf's FunctionDef declares only the signature's name: a library's
    // function bodies do not parse strictly. Read again, skipping what is
    // not declared, to refuse the library by name rather than by a field.
    google::protobuf::TextFormat::Parser lenient;
    lenient.SetRecursionLimit(kMaxNesting);
    ParseErrors ignored;
    lenient.RecordErrorsTo(&ignored);
    lenient.AllowUnknownField(true);
    tensorflow::GraphDef with_library;
    if (lenient.ParseFromString(std::string(text), &with_library) &&
        with_library.library().function_size() > 0) {
      return WithSource(GraphDefFromProto(with_library).status(), what);
    }
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a text GraphDef: ", errors.first()));
  }
  absl::StatusOr<GraphDef> graph = GraphDefFromProto(proto);
  if (!graph.ok()) return WithSource(graph.status(), what);
  return graph;
}

std::string SerializeBinaryGraphDef(const GraphDef& graph) {
  tensorflow::GraphDef proto;
  GraphDefToProto(graph, &proto);
  std::string bytes;
  // Deterministic: the attr maps are written in key order, so equal graphs
  // give equal files.
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  proto.SerializeToCodedStream(&coded);
  return bytes;
}

std::string SerializeTextGraphDef(const GraphDef& graph) {
  tensorflow::GraphDef proto;
  GraphDefToProto(graph, &proto);
  std::string text;
  google::protobuf::TextFormat::PrintToString(proto, &text);
  return text;
}

absl::Status ReadBinaryProto(const std::string& path, GraphDef* graph) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<GraphDef> parsed = ParseBinaryGraphDef(*bytes, path);
  if (!parsed.ok()) return parsed.status();
  *graph = *std::move(parsed);
  return absl::OkStatus();
}

absl::Status ReadTextProto(const std::string& path, GraphDef* graph) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<GraphDef> parsed = ParseTextGraphDef(*text, path);
  if (!parsed.ok()) return parsed.status();
  *graph = *std::move(parsed);
  return absl::OkStatus();
}

absl::Status WriteBinaryProto(const std::string& path, const GraphDef& graph) {
  return WriteFile(path, SerializeBinaryGraphDef(graph));
}

absl::Status WriteTextProto(const std::string& path, const GraphDef& graph) {
  return WriteFile(path, SerializeTextGraphDef(graph));
}

absl::StatusOr<GraphDef> ReadGraphDefFile(const std::string& path) {
  GraphDef graph;
  absl::Status s = IsTextPath(path) ? ReadTextProto(path, &graph) : ReadBinaryProto(path, &graph);
  if (!s.ok()) return s;
  return graph;
}

absl::Status WriteGraphDefFile(const std::string& path, const GraphDef& graph) {
  return IsTextPath(path) ? WriteTextProto(path, graph) : WriteBinaryProto(path, graph);
}

}  // namespace minitf
