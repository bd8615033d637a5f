#include "optimizer/graph_dump.h"

#include <atomic>
#include <cctype>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "platform/logging.h"
#include "runtime/graph_def_io.h"

namespace minitf {

std::string DumpGraph(const std::string& stage, const Graph& graph) {
  const char* prefix = std::getenv("TF_DUMP_GRAPH_PREFIX");
  if (prefix == nullptr || *prefix == '\0') return "";
  return DumpGraphDef(stage, graph.ToGraphDef());
}

std::string DumpGraphDef(const std::string& stage, const GraphDef& graph) {
  const char* prefix = std::getenv("TF_DUMP_GRAPH_PREFIX");
  if (prefix == nullptr || *prefix == '\0') return "";
  static std::atomic<int> count{0};
  std::string name = stage;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  }
  const std::string path = absl::StrCat(prefix, "/", name, "_", count++, ".pbtxt");
  if (absl::Status s = WriteTextProto(path, graph); !s.ok()) {
    LOG(WARNING, "TF_DUMP_GRAPH_PREFIX: the {} graph was not written: {}", stage, s.message());
    return "";
  }
  LOG(INFO, "TF_DUMP_GRAPH_PREFIX: the {} graph is in {}", stage, path);
  return path;
}

}  // namespace minitf
