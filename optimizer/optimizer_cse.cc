#include "optimizer/optimizer_cse.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "optimizer/node_rules.h"
#include "runtime/types.h"

namespace minitf {
namespace {

bool SameFloatBits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || !(a.shape() == b.shape())) return false;
  if (a.IsInitialized() != b.IsInitialized()) return false;
  if (!a.IsInitialized() || a.TotalBytes() == 0) return true;  // No bytes, maybe no buffer.
  return std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

// What two equal nodes share besides their attrs: op, device, data inputs
// in order, control inputs as a set.
std::string SignatureOf(const Node& n) {
  std::vector<std::pair<int, int>> data(n.num_inputs(), {-1, -1});
  std::vector<int> control;
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge()) {
      if (e->src()->IsOp()) control.push_back(e->src()->id());
    } else {
      data[e->dst_input()] = {e->src()->id(), e->src_output()};
    }
  }
  std::sort(control.begin(), control.end());
  control.erase(std::unique(control.begin(), control.end()), control.end());
  std::string signature = absl::StrCat(n.type_string(), "|", n.assigned_device_name(), "|",
                                       n.requested_device(), "|");
  for (const auto& [id, slot] : data) absl::StrAppend(&signature, id, ":", slot, ",");
  absl::StrAppend(&signature, "|");
  for (int id : control) absl::StrAppend(&signature, id, ",");
  return signature;
}

bool SameAttrs(const Node& a, const Node& b) {
  const AttrValueMap& x = a.def().attr;
  const AttrValueMap& y = b.def().attr;
  if (x.size() != y.size()) return false;
  for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
    if (i->first != j->first || !SameAttrValue(i->second, j->second)) return false;
  }
  return true;
}

// Moves every consumer of `from` to `to` and removes `from`.
void ReplaceNode(Graph* graph, Node* from, Node* to) {
  const std::vector<const Edge*> out(from->out_edges().begin(), from->out_edges().end());
  for (const Edge* e : out) {
    Node* dst = e->dst();
    const int src_output = e->src_output();
    const int dst_input = e->dst_input();
    const bool control = e->IsControlEdge();
    graph->RemoveEdge(e);
    if (dst->IsSink()) continue;  // FixupSourceAndSinkEdges adds what is needed.
    if (control) {
      graph->AddControlEdge(to, dst);
    } else {
      graph->AddEdge(to, src_output, dst, dst_input);
    }
  }
  graph->RemoveNode(from);
}

}  // namespace

bool SameAttrValue(const AttrValue& a, const AttrValue& b) {
  if (a.value().index() != b.value().index()) return false;
  return std::visit(
      [&b](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b.value());
        if constexpr (std::is_same_v<T, std::monostate>) {
          return true;
        } else if constexpr (std::is_same_v<T, float>) {
          return SameFloatBits(x, y);
        } else if constexpr (std::is_same_v<T, std::vector<float>>) {
          return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), SameFloatBits);
        } else if constexpr (std::is_same_v<T, Tensor>) {
          return SameTensor(x, y);
        } else {
          return x == y;
        }
      },
      a.value());
}

bool OptimizeCSE(Graph* graph, const std::function<bool(const Node*)>& consider) {
  absl::StatusOr<std::vector<Node*>> order = graph->TopologicalOrder();
  if (!order.ok()) return false;
  absl::flat_hash_map<std::string, std::vector<Node*>> seen;
  bool changed = false;
  for (Node* n : *order) {
    if (!MayChange(*n) || (consider && !consider(n))) continue;
    std::vector<Node*>& candidates = seen[SignatureOf(*n)];
    const auto same = std::find_if(candidates.begin(), candidates.end(),
                                   [n](const Node* c) { return SameAttrs(*c, *n); });
    if (same == candidates.end()) {
      candidates.push_back(n);
      continue;
    }
    ReplaceNode(graph, n, *same);
    changed = true;
  }
  if (changed) graph->FixupSourceAndSinkEdges();
  return changed;
}

}  // namespace minitf
