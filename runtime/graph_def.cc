#include "runtime/graph_def.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace minitf {

std::string TensorId::ToString() const {
  if (IsControl()) return absl::StrCat("^", node);
  return absl::StrCat(node, ":", index);
}

absl::StatusOr<TensorId> ParseTensorName(absl::string_view name) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed tensor name '", name, "': ", why));
  };
  if (name.empty()) return bad("empty");
  TensorId id;
  if (name[0] == '^') {
    id.node = std::string(name.substr(1));
    id.index = kControlSlot;
    if (id.node.empty()) return bad("control input without a node name");
    if (id.node.find(':') != std::string::npos) return bad("control input with a port");
    return id;
  }
  const size_t colon = name.rfind(':');
  if (colon == absl::string_view::npos) {
    id.node = std::string(name);
    return id;
  }
  id.node = std::string(name.substr(0, colon));
  if (id.node.empty()) return bad("empty node name");
  int port = 0;
  if (!absl::SimpleAtoi(name.substr(colon + 1), &port) || port < 0) {
    return bad("the port must be a non-negative integer");
  }
  id.index = port;
  return id;
}

std::string SummarizeNodeDef(const NodeDef& def) {
  std::string attrs = absl::StrJoin(def.attr, ", ", [](std::string* out, const auto& kv) {
    absl::StrAppend(out, kv.first, "=", kv.second.DebugString());
  });
  return absl::StrCat(def.name, " = ", def.op, "[", attrs, "](",
                      absl::StrJoin(def.input, ", "), ")",
                      def.device.empty() ? "" : absl::StrCat(" on ", def.device));
}

}  // namespace minitf
